// Encodes QR codes off the page's main thread (qr-code.tsx): uqr tries every mask pattern, a
// task long enough on a slow phone to hold up what the reader does meanwhile.
import { qrMatrix } from './qr-matrix';

addEventListener('message', (event: MessageEvent<string>) => {
  postMessage(qrMatrix(event.data));
});
