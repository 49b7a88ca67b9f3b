import { encode } from 'uqr';

/** A QR code's modules: `data[y][x]` is dark, `size` modules a side, its border included. */
export interface QrMatrix {
  size: number;
  data: boolean[][];
}

/** The QR code of `text` as the page draws it. */
export function qrMatrix(text: string): QrMatrix {
  // M: still readable with some of it smudged; a border of four modules, as the standard asks.
  const { size, data } = encode(text, { ecc: 'M', border: 4 });
  return { size, data };
}
