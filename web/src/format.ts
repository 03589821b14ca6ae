// Display formats. Money arrives as exact decimal text (the API's `_usd` fields) and is never
// turned into a float here: it is rounded as text.

/** "$12.34" (or more decimals): `usd` is a decimal string such as "12.3456789". */
export function usd(text: string | null | undefined, decimals = 2): string {
  if (text === null || text === undefined || text === '') return '—';
  const negative = text.startsWith('-');
  const [whole = '0', frac = ''] = (negative ? text.slice(1) : text).split('.');
  const rounded = roundDecimal(whole, frac, decimals);
  return `${negative && !/^[0.]*$/.test(rounded) ? '-' : ''}$${groupThousands(rounded)}`;
}

function roundDecimal(whole: string, frac: string, decimals: number): string {
  const padded = frac.padEnd(decimals + 1, '0');
  let digits = (whole + padded.slice(0, decimals)).split('').map(Number);
  if (Number(padded[decimals]) >= 5) {
    let i = digits.length - 1;
    while (i >= 0) {
      if (digits[i]! < 9) {
        digits[i]! += 1;
        break;
      }
      digits[i] = 0;
      i--;
    }
    if (i < 0) digits = [1, ...digits];
  }
  const s = digits.join('');
  const w = s.slice(0, s.length - decimals).replace(/^0+(?=\d)/, '') || '0';
  return decimals === 0 ? w : `${w}.${s.slice(s.length - decimals)}`;
}

function groupThousands(s: string): string {
  const [w, f] = s.split('.');
  const grouped = w!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return f === undefined ? grouped : `${grouped}.${f}`;
}

/** A per-request cost: exact (the API's decimal text), at least 2 decimals. */
export function cost(text: string | null | undefined): string {
  if (text === null || text === undefined || text === '') return '—';
  const frac = text.split('.')[1] ?? '';
  return usd(text, Math.max(2, frac.replace(/0+$/, '').length));
}

/**
 * A sum of spend: 4 decimals from a cent up; below a cent every decimal (cheap models: a
 * day of requests may cost a few millionths of a dollar, which 4 decimals would misstate).
 */
export function spend(text: string | null | undefined): string {
  if (text === null || text === undefined || text === '') return '—';
  return /^-?0\.00/.test(text) && !/^-?[0.]*$/.test(text) ? cost(text) : usd(text, 4);
}

/** A time in the browser's time zone. */
export function time(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return d.toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
}

/** A time in the browser's time zone, short: "Nov 24, 15:42" (the year when not this one). */
export function shortTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  const year = d.getFullYear() === new Date().getFullYear() ? undefined : 'numeric';
  return d.toLocaleString(undefined, { year, month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export function int(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : n.toLocaleString();
}

export function ms(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : `${n.toLocaleString()} ms`;
}

/** YYYY-MM-DD of a UTC day, n days before today. */
export function dayAgo(n: number): string {
  return new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
}

/** A per-token USD price (decimal text) as USD per million tokens, shifting the decimal point (no float). */
export function perMillion(text: string | undefined): string {
  if (text === undefined || text === '') return '—';
  const [whole = '0', frac = ''] = text.split('.');
  const f = frac.padEnd(6, '0');
  const shifted = `${whole}${f.slice(0, 6)}`.replace(/^0+(?=\d)/, '');
  const rest = f.slice(6).replace(/0+$/, '');
  return usd(rest === '' ? shifted : `${shifted}.${rest}`, rest.length > 2 ? Math.min(rest.length, 4) : 2);
}
