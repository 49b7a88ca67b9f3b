import { analyticsApi } from '@shortener/contracts/web-analytics';
import { downloadCsv, type CsvDownload } from '../../stats/api/download-csv';

/**
 * publicApi.getAnalyticsCsv with the page's query (viewQuery): every visit of the account's
 * links in the view, saved as analytics-visits.csv. Never throws: a failure is a message.
 */
export function downloadAnalyticsCsv(query: Record<string, string>): Promise<CsvDownload> {
  return downloadCsv(analyticsApi.getAnalyticsCsv, { query }, 'analytics-visits.csv');
}
