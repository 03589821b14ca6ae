import { deflateSync } from 'node:zlib';

// A tiny PDF writer for tests: real PDF files (a catalog, a page tree, Helvetica text pages,
// a cross-reference table) made in the test, so no fixture is downloaded. Variants make the
// files the extractor must refuse: encrypted (a Standard security handler whose user
// password is not empty), and a page whose content stream takes long to read.

export interface PdfOptions {
  /**
   * One string per page; each line of a page is shown on a line of its own (pdf.js reads no
   * text past the page's edge: keep lines under ~90 characters).
   */
  pages: string[];
  /** Adds an /Encrypt dictionary (RC4, revision 2) that the empty password does not open. */
  encrypted?: boolean;
  /** Repeats each page's text this many times in its (deflated) content stream: a page slow to read. */
  repeat?: number;
  /** Appends this many bytes of blanks to each page's (deflated) content stream: a decompression bomb. */
  bomb?: number;
}

/** The bytes of a PDF with `pages`. */
export function makePdf(options: PdfOptions): Uint8Array {
  const objects: Buffer[] = [];
  const add = (body: Buffer | string): number => {
    objects.push(typeof body === 'string' ? Buffer.from(body, 'latin1') : body);
    return objects.length;
  };
  const catalog = add('');
  const pages = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const kids: number[] = [];
  for (const text of options.pages) {
    const plain = options.repeat === undefined && options.bomb === undefined;
    const content = pageContent(text, options.repeat ?? 1);
    const stream = plain
      ? content
      : deflateSync(options.bomb === undefined ? content : Buffer.concat([content, Buffer.alloc(options.bomb, 0x20)]));
    const filter = plain ? '' : ' /Filter /FlateDecode';
    const contents = add(
      Buffer.concat([
        Buffer.from(`<< /Length ${stream.length}${filter} >>\nstream\n`, 'latin1'),
        stream,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    );
    kids.push(
      add(
        `<< /Type /Page /Parent ${pages} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${contents} 0 R >>`,
      ),
    );
  }
  objects[catalog - 1] = Buffer.from(`<< /Type /Catalog /Pages ${pages} 0 R >>`, 'latin1');
  objects[pages - 1] = Buffer.from(`<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`, 'latin1');
  let trailerExtra = '';
  if (options.encrypted === true) {
    const encrypt = add(`<< /Filter /Standard /V 1 /R 2 /O <${'7a'.repeat(32)}> /U <${'5c'.repeat(32)}> /P -44 >>`);
    trailerExtra = ` /Encrypt ${encrypt} 0 R /ID [<${'01'.repeat(16)}> <${'01'.repeat(16)}>]`;
  }
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = chunks[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(offset);
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    chunks.push(obj);
    offset += obj.length;
  });
  const xref = [
    `xref\n0 ${objects.length + 1}\n`,
    '0000000000 65535 f \n',
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`),
  ].join('');
  chunks.push(
    Buffer.from(
      `${xref}trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R${trailerExtra} >>\nstartxref\n${offset}\n%%EOF\n`,
      'latin1',
    ),
  );
  return new Uint8Array(Buffer.concat(chunks));
}

function pageContent(text: string, repeat: number): Buffer {
  const lines = text
    .split('\n')
    .map((line) => `(${escapePdfString(line)}) Tj T*`)
    .join(' ');
  const body = `${lines} `.repeat(repeat);
  return Buffer.from(`BT /F1 12 Tf 14 TL 72 720 Td ${body}ET`, 'latin1');
}

function escapePdfString(s: string): string {
  return s.replace(/[\\()]/g, (c) => `\\${c}`);
}

/** A data: URI of `bytes` as a PDF, as clients send inline files. */
export function pdfDataUri(bytes: Uint8Array): string {
  return `data:application/pdf;base64,${Buffer.from(bytes).toString('base64')}`;
}
