import {
  MESSAGES,
  REQUESTED_WITH_HEADER,
  REQUESTED_WITH_VALUE,
  errorResponseSchema,
} from '@shortener/contracts/web';
import { statsApi } from '@shortener/contracts/web-stats';
import { routeUrl, type RouteRequest, type WebRoute } from '../../../lib/api-route';

export type CsvDownload = { ok: true } | { ok: false; message: string; signedOut: boolean };

/**
 * publicApi.getVisitsCsv with X-Requested-With (a plain link could not send it), read whole,
 * then saved as visits-{urlID}.csv. Never throws: a failure is a message to show.
 */
export function downloadVisitsCsv(urlID: string): Promise<CsvDownload> {
  return downloadCsv(statsApi.getVisitsCsv, { params: { urlID } }, `visits-${urlID}.csv`);
}

/**
 * A CSV export of the API (a route that streams text/csv) fetched with X-Requested-With, read
 * whole, then saved through a Blob link as `fileName`. Never throws: a failure is a message.
 */
export async function downloadCsv(
  route: WebRoute,
  request: RouteRequest,
  fileName: string,
): Promise<CsvDownload> {
  let response: Response;
  try {
    response = await fetch(routeUrl(route, request), {
      credentials: 'same-origin',
      headers: { [REQUESTED_WITH_HEADER]: REQUESTED_WITH_VALUE, Accept: route.streams ?? '' },
    });
  } catch {
    return { ok: false, message: MESSAGES.serverError, signedOut: false };
  }
  if (!response.ok) {
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      body = undefined;
    }
    const parsed = errorResponseSchema.safeParse(body);
    const serverMessage = parsed.success ? parsed.data.message : undefined;
    const message =
      response.status === 404
        ? MESSAGES.urlNotFound
        : (response.status === 401 || response.status === 400) && serverMessage
          ? serverMessage
          : MESSAGES.serverError;
    return { ok: false, message, signedOut: response.status === 401 };
  }
  let blob: Blob;
  try {
    blob = await response.blob();
  } catch {
    return { ok: false, message: MESSAGES.serverError, signedOut: false };
  }
  saveBlob(new Blob([blob], { type: 'text/csv' }), fileName);
  return { ok: true };
}

/** Saves a Blob as a file through a temporary link. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // After the click has handed the file over.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
