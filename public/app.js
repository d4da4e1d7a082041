// goldset's progressive enhancement: keyboard shortcuts, auto-submitting selects, upload progress.
// Every page works without it.
(function () {
  'use strict';

  // Ctrl/⌘+Enter submits the form a text field belongs to.
  document.addEventListener('keydown', function (e) {
    var el = e.target;
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && el && el.form) {
      e.preventDefault();
      el.form.requestSubmit();
      return;
    }
    // "/" jumps to the search box, unless the user is typing somewhere.
    if (e.key === '/' && !/^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName) && !el.isContentEditable) {
      var search = document.querySelector('[data-hotkey="/"]');
      if (search) { e.preventDefault(); search.focus(); search.select(); }
    }
  });

  document.addEventListener('change', function (e) {
    if (e.target.matches && e.target.matches('select[data-autosubmit]')) e.target.form.requestSubmit();
  });

  document.addEventListener('focusin', function (e) {
    if (e.target.matches && e.target.matches('[data-select-on-focus]')) e.target.select();
  });

  // After htmx swaps in a form, put the cursor where the next keystroke belongs.
  document.addEventListener('htmx:after:swap', function () {
    var target = document.querySelector('.has-error textarea, .has-error input, [data-focus-after-swap]');
    if (target) target.focus();
  });

  // fetch() cannot report upload progress, so uploads go through XMLHttpRequest with a progress bar.
  document.addEventListener('submit', function (e) {
    var form = e.target;
    if (!form.matches('form[data-upload]') || !window.XMLHttpRequest) return;
    e.preventDefault();
    var bar = form.querySelector('.upload-progress');
    var status = form.querySelector('.upload-status');
    var button = form.querySelector('button[type=submit]');
    var xhr = new XMLHttpRequest();
    xhr.open('POST', form.action);
    xhr.setRequestHeader('X-CSRF-Token', document.querySelector('meta[name=csrf-token]').content);
    xhr.upload.onprogress = function (p) {
      if (!p.lengthComputable) return;
      var pct = Math.round((100 * p.loaded) / p.total);
      bar.hidden = false; bar.value = pct;
      status.textContent = form.dataset.uploading.replace('{pct}', pct);
      if (pct >= 100) status.textContent = form.dataset.processing;
    };
    xhr.onload = function () {
      document.open(); document.write(xhr.responseText); document.close();
      history.replaceState(null, '', form.action);
    };
    xhr.onerror = function () { button.disabled = false; status.textContent = 'Network error'; };
    button.disabled = true;
    xhr.send(new FormData(form));
  });
})();
