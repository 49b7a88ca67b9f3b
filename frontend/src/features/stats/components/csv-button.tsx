import { useState } from 'react';
import { ErrorMessage } from '../../../components/feedback';
import { useSession } from '../../auth';
import type { CsvDownload } from '../api/download-csv';

/** 'Download CSV': an export fetched with X-Requested-With and saved as a file. */
export function CsvButton({ download }: { download: () => Promise<CsvDownload> }) {
  const { signOut } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function onDownload() {
    setBusy(true);
    setError(null);
    const result = await download();
    setBusy(false);
    if (!result.ok) {
      setError(result.message);
      if (result.signedOut) signOut();
    }
  }

  return (
    <div className="stats__csv">
      <button
        type="button"
        className="button button--secondary"
        aria-busy={busy}
        disabled={busy}
        onClick={() => void onDownload()}
      >
        {busy ? 'Preparing…' : 'Download CSV'}
      </button>
      {error && <ErrorMessage>{`The CSV could not be downloaded: ${error}`}</ErrorMessage>}
    </div>
  );
}
