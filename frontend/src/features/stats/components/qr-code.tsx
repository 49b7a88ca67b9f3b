import { useEffect, useState } from 'react';
import { ErrorMessage } from '../../../components/feedback';
import { saveBlob } from '../api/download-csv';
import type { QrMatrix as Matrix } from '../lib/qr-matrix';

/** The PNG's least width in pixels: print size (about 9 cm at 300 dpi). */
const PNG_MIN_PX = 1024;

/** The QR code as an SVG document: one path of unit squares, dark on white. */
export function qrSvg({ size, data }: Matrix): string {
  let path = '';
  data.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (dark) path += `M${String(x)} ${String(y)}h1v1h-1z`;
    }),
  );
  const side = String(size);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${side} ${side}" ` +
    `shape-rendering="crispEdges"><rect width="${side}" height="${side}" fill="#fff"/>` +
    `<path fill="#000" d="${path}"/></svg>`
  );
}

/** Whole pixels per module, as few as make the PNG at least PNG_MIN_PX wide: crisp edges. */
export function pngScale(size: number): number {
  return Math.ceil(PNG_MIN_PX / size);
}

function savePng({ size, data }: Matrix, fileName: string): void {
  const canvas = document.createElement('canvas');
  const scale = pngScale(size);
  canvas.width = canvas.height = size * scale;
  const context = canvas.getContext('2d');
  if (!context) return;
  context.fillStyle = '#fff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.fillStyle = '#000';
  data.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (dark) context.fillRect(x * scale, y * scale, scale, scale);
    }),
  );
  canvas.toBlob((blob) => {
    if (blob) saveBlob(blob, fileName);
  }, 'image/png');
}

/**
 * A QR code of the short link, encoded in the browser by uqr in a worker (loaded only when
 * shown), with downloads as SVG and PNG.
 */
export function QrCode({ urlID, shortLink }: { urlID: string; shortLink: string }) {
  const [matrix, setMatrix] = useState<Matrix | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let current = true;
    const show = (shown: Matrix) => {
      if (current) setMatrix(shown);
    };
    const fail = () => {
      if (current) setFailed(true);
    };
    // Off the main thread where there are workers (every browser); where there are none
    // (jsdom in the unit tests), here.
    if (typeof Worker === 'undefined') {
      import('../lib/qr-matrix').then(({ qrMatrix }) => show(qrMatrix(shortLink))).catch(fail);
      return () => {
        current = false;
      };
    }
    const worker = new Worker(new URL('../lib/qr-worker.ts', import.meta.url), {
      type: 'module',
    });
    worker.addEventListener('message', (event: MessageEvent<Matrix>) => {
      show(event.data);
      worker.terminate();
    });
    worker.addEventListener('error', fail);
    worker.postMessage(shortLink);
    return () => {
      current = false;
      worker.terminate();
    };
  }, [shortLink]);

  if (failed) return <ErrorMessage>The QR code could not be drawn.</ErrorMessage>;
  if (!matrix) return <div className="qr__placeholder" aria-hidden="true" />;
  const svg = qrSvg(matrix);
  const fileName = `qr-${urlID}`;
  return (
    <div className="qr">
      <img
        className="qr__image"
        src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`}
        alt={`QR code of ${shortLink}`}
        width={160}
        height={160}
      />
      <div className="qr__actions">
        <button
          type="button"
          className="button button--secondary"
          onClick={() => saveBlob(new Blob([svg], { type: 'image/svg+xml' }), `${fileName}.svg`)}
        >
          Download SVG
        </button>
        <button
          type="button"
          className="button button--secondary"
          onClick={() => savePng(matrix, `${fileName}.png`)}
        >
          Download PNG
        </button>
      </div>
    </div>
  );
}
