// The text of one part (file) of an XLSX zip, for tests that check the written XML itself.
import yauzl from 'yauzl';

export async function xlsxPart(file: string, name: string): Promise<string> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.open(file, { lazyEntries: true }, (e, z) => (e ? reject(e) : resolve(z))));
  return new Promise((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (entry.fileName !== name) return zip.readEntry();
      zip.openReadStream(entry, (e, s) => {
        if (e) return reject(e);
        const chunks: Buffer[] = [];
        s.on('data', (c: Buffer) => chunks.push(c)).on('end', () => { zip.close(); resolve(Buffer.concat(chunks).toString('utf8')); });
      });
    });
    zip.on('end', () => { zip.close(); reject(new Error(`no part ${name}`)); });
    zip.readEntry();
  });
}
