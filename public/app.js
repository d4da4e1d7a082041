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
    if (e.target.matches && e.target.matches('select[data-autosubmit]')) {
      // Come back to the address htmx pushed since the page loaded (filters, threshold), not the original one.
      if (e.target.form.elements.back) e.target.form.elements.back.value = location.pathname + location.search;
      e.target.form.requestSubmit();
    }
    // Judge settings: a provider preset fills in its usual address and models, and says its note.
    if (e.target.matches && e.target.matches('select[data-preset-select]')) {
      var o = e.target.selectedOptions[0];
      var note = document.getElementById(e.target.id + '-note');
      if (note && o) note.textContent = o.dataset.note || '';
      if (!o || !o.dataset.baseUrl) return;
      var form = e.target.form;
      form.elements.base_url.value = o.dataset.baseUrl;
      if (o.dataset.chatModel) form.elements.chat_model.value = o.dataset.chatModel;
      if (o.dataset.embeddingModel) form.elements.embedding_model.value = o.dataset.embeddingModel;
      form.elements.structured_output.value = o.dataset.structured;
    }
  });

  document.addEventListener('focusin', function (e) {
    if (e.target.matches && e.target.matches('[data-select-on-focus]')) e.target.select();
  });

  // A page that answers a refused form opens at the refusal, wherever it is on the page (the Metrics
  // page's prompt steps lie far below its top): a field's error puts the focus on the field (which it
  // describes), a form's or a list's refusal takes the focus itself, so a screen reader reads it; either
  // is scrolled into view when it is not.
  document.addEventListener('DOMContentLoaded', function () {
    var refusal = document.querySelector('form .alert[role="alert"], .field.has-error, [data-refusal]');
    if (!refusal) return;
    var target = refusal.classList.contains('field') ? refusal.querySelector('input, select, textarea') : refusal;
    if (!target) return;
    if (target === refusal) target.tabIndex = -1;
    target.focus({ preventScroll: true });
    var box = refusal.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) refusal.scrollIntoView({ block: 'center' });
  });

  // Copy buttons (an invitation link shown once): visible only where this script runs and can copy.
  function showCopyButtons() {
    if (!navigator.clipboard) return;
    document.querySelectorAll('button[data-copy][hidden]').forEach(function (b) { b.hidden = false; });
  }
  document.addEventListener('DOMContentLoaded', showCopyButtons);
  document.addEventListener('htmx:after:swap', showCopyButtons);
  document.addEventListener('click', function (e) {
    var button = e.target.closest && e.target.closest('button[data-copy]');
    if (!button) return;
    var field = document.getElementById(button.dataset.copy);
    if (!field) return;
    navigator.clipboard.writeText(field.value).then(function () {
      var label = button.textContent;
      button.textContent = button.dataset.copied;
      setTimeout(function () { button.textContent = label; }, 2000);
    }, function () { field.focus(); field.select(); });
  });

  // The criterion form: only the fields of the selected type (each group says which types it is for).
  function showKindFields(select) {
    var form = select.form;
    Array.prototype.forEach.call(form.querySelectorAll('.kind-fields'), function (group) {
      group.hidden = group.dataset.kinds.split(' ').indexOf(select.value) < 0;
    });
  }
  document.addEventListener('change', function (e) {
    if (e.target.matches && e.target.matches('select[data-kind-select]')) showKindFields(e.target);
  });
  document.addEventListener('DOMContentLoaded', function () {
    Array.prototype.forEach.call(document.querySelectorAll('select[data-kind-select]'), showKindFields);
  });

  // The calibration threshold: any value when opened at one off the 0.05 grid; the keys step by 0.05 again once moved.
  document.addEventListener('keydown', function (e) {
    if (e.target.matches && e.target.matches('input.threshold') && e.target.step === 'any' && /^Arrow|^Page|^Home|^End/.test(e.key)) e.target.step = '0.05';
  });

  // The calibration report's threshold slider shows its value as it moves.
  document.addEventListener('input', function (e) {
    if (e.target.matches && e.target.matches('input.threshold')) {
      var out = document.getElementById('threshold-value');
      if (out) out.textContent = Number(e.target.value).toFixed(2);
    }
  });

  // The labelling workspace: number keys pick options of the current criterion, J/K move between
  // criteria, Shift+digit toggles a context's relevance, Enter submits, S skips, B/N walk the history, ? helps.
  var current = 0;
  function criteria() { return Array.prototype.slice.call(document.querySelectorAll('#workspace fieldset.criterion')); }
  function markCurrent() {
    var list = criteria();
    list.forEach(function (f, i) { f.classList.toggle('current', i === current); });
  }
  function firstUnanswered() {
    var list = criteria();
    for (var i = 0; i < list.length; i++) {
      if (!list[i].querySelector('input:checked') && !(list[i].querySelector('input[type=number]') || {}).value) return i;
    }
    return 0;
  }
  function resetWorkspace() { current = firstUnanswered(); markCurrent(); }
  // Only a new item resets the current criterion; the "Draft saved" swap must not move it.
  var shownWorkspace = null;
  function resetIfNewWorkspace() {
    var ws = document.getElementById('workspace');
    if (ws !== shownWorkspace) { shownWorkspace = ws; resetWorkspace(); }
  }
  document.addEventListener('DOMContentLoaded', resetIfNewWorkspace);
  document.addEventListener('htmx:after:swap', resetIfNewWorkspace);
  document.addEventListener('focusin', function (e) {
    var f = e.target.closest && e.target.closest('#workspace fieldset.criterion');
    if (f) { current = criteria().indexOf(f); markCurrent(); }
  });
  document.addEventListener('keydown', function (e) {
    var ws = document.getElementById('workspace');
    if (!ws || !document.getElementById('label-form')) return;
    var el = e.target;
    if (document.querySelector('dialog[open]')) return;
    if (e.key === 'Enter' && el.closest && el.closest('button, a[href], summary')) return;
    var typing = /^(TEXTAREA|SELECT)$/.test(el.tagName) || (el.tagName === 'INPUT' && /^(text|number|search)$/.test(el.type));
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (typing) {
      if (e.key === 'Escape') el.blur();
      return;
    }
    var list = criteria();
    var digit = /^Digit([1-9])$/.exec(e.code);
    if (digit && e.shiftKey) {
      var box = ws.querySelector('input[data-context-key="' + digit[1] + '"]');
      if (box) { e.preventDefault(); box.checked = !box.checked; box.dispatchEvent(new Event('change', { bubbles: true })); }
      return;
    }
    if (digit && list[current]) {
      var radio = list[current].querySelector('input[data-key="' + digit[1] + '"]');
      if (radio) {
        e.preventDefault();
        radio.checked = true;
        radio.dispatchEvent(new Event('change', { bubbles: true }));
        if (current < list.length - 1) { current++; markCurrent(); }
      }
      return;
    }
    var key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (key === 'j' || key === 'k') {
      e.preventDefault();
      current = Math.max(0, Math.min(list.length - 1, current + (key === 'j' ? 1 : -1)));
      markCurrent();
      var focusable = list[current] && (list[current].querySelector('input:checked') || list[current].querySelector('input'));
      if (focusable) focusable.focus();
      return;
    }
    if (key === 'Enter') { e.preventDefault(); document.getElementById('label-form').requestSubmit(); return; }
    // S skips, B and N walk the expert's own labelling history (links the server resolves, not browser history).
    if (key === 's' || key === 'b' || key === 'n') {
      var target = ws.querySelector('[data-hotkey="' + key + '"]');
      if (target) { e.preventDefault(); target.click(); }
      return;
    }
    if (key === 'r') { e.preventDefault(); document.getElementById('f-rationale').focus(); return; }
    if (e.key === '?') { e.preventDefault(); var d = document.getElementById('keys-help'); if (d && !d.open) d.showModal(); }
  });
  document.addEventListener('click', function (e) {
    var help = document.getElementById('keys-help');
    if (help && !help.open && e.target.closest && e.target.closest('[data-show-help]')) help.showModal();
  });

  // After htmx swaps in a form, put the cursor where the next keystroke belongs.
  // Only when the swapped content is the form itself: a list refresh must not steal the cursor.
  document.addEventListener('htmx:after:swap', function (e) {
    var src = e.detail && e.detail.ctx && e.detail.ctx.sourceElement;
    if (!src || !src.querySelector || !src.querySelector('[data-focus-after-swap]')) return;
    var target = document.querySelector('.has-error textarea, .has-error input, [data-focus-after-swap]');
    if (target) target.focus();
  });

  // A request made without a page load that got no answer at all (the connection broke, the server
  // restarting) changes nothing on the page: say so, in the page's language (layout.tsx), until the
  // next request that is answered. An answer with an error status is swapped in and speaks for itself.
  // A request the page makes by itself (data-background: the labelling autosave) answered after a
  // person's request failed does not take the notice away: that request (a submit) still was not made.
  var failedByPerson = false;
  function background(ctx) {
    var elt = ctx && ctx.sourceElement;
    return Boolean(elt && elt.closest && elt.closest('[data-background]'));
  }
  document.addEventListener('htmx:error', function (e) {
    var ctx = e.detail && e.detail.ctx;
    var box = document.getElementById('request-failed');
    if (!box || !ctx || ctx.response) return;
    box.hidden = false;
    failedByPerson = !background(ctx);
  });
  document.addEventListener('htmx:after:request', function (e) {
    var box = document.getElementById('request-failed');
    if (!box || box.hidden || (failedByPerson && background(e.detail && e.detail.ctx))) return;
    box.hidden = true;
  });

  // A request refused for want of a current sign-in is answered into #session-notice (security.ts), and
  // what the person entered stays on the page. Once they are signed in again (in another tab), this page
  // takes the new sign-in's form token — when it is looked at again, or at once if the refusal was only
  // the page being older than the sign-in — and says they can send it again; the next answered request
  // takes the notice away.
  function resumeSignIn() {
    var notice = document.getElementById('session-notice');
    if (!notice || !notice.firstChild || !notice.classList.contains('alert') || notice.dataset.resuming) return;
    notice.dataset.resuming = '1';
    fetch('/session/csrf', { credentials: 'same-origin', cache: 'no-store' }).then(function (r) {
      return r.ok && !r.redirected ? r.text() : null;
    }).then(function (token) {
      delete notice.dataset.resuming;
      var said = notice.querySelector('[data-resumed]');
      if (!token || !said) return;
      var meta = document.querySelector('meta[name="csrf-token"]');
      if (meta) meta.content = token;
      var headers = document.body.getAttribute('hx-headers:inherited');
      if (headers) {
        var h = JSON.parse(headers);
        h['X-CSRF-Token'] = token;
        document.body.setAttribute('hx-headers:inherited', JSON.stringify(h));
      }
      document.querySelectorAll('input[name="_csrf"]').forEach(function (i) { i.value = token; });
      notice.textContent = said.dataset.resumed;
      notice.classList.replace('alert', 'flash');
    }, function () { delete notice.dataset.resuming; });
  }
  window.addEventListener('focus', resumeSignIn);
  document.addEventListener('visibilitychange', function () { if (!document.hidden) resumeSignIn(); });
  // After the answer is swapped in: a refusal has just filled the notice (try the token at once); a
  // person's request that went through ends it.
  // While the notice says the sign-in ended, what the page asks by itself (a run's progress poll, the
  // autosave: data-background) is not sent: each would only be refused and fill the notice again,
  // read out again by screen readers. It goes on once the page has taken a new sign-in.
  document.addEventListener('htmx:before:request', function (e) {
    var notice = document.getElementById('session-notice');
    if (notice && notice.firstChild && notice.classList.contains('alert') && background(e.detail && e.detail.ctx)) e.preventDefault();
  });
  document.addEventListener('htmx:finally:request', function (e) {
    var ctx = e.detail && e.detail.ctx;
    var notice = document.getElementById('session-notice');
    if (!notice || !notice.firstChild || !ctx || !ctx.response) return;
    if (ctx.response.status === 401 || ctx.response.status === 403) { notice.classList.replace('flash', 'alert'); resumeSignIn(); }
    else if (ctx.response.status < 400 && !background(ctx)) notice.textContent = '';
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
    xhr.onerror = function () { button.disabled = false; bar.hidden = true; status.textContent = form.dataset.failed; };
    button.disabled = true;
    xhr.send(new FormData(form));
  });
})();
