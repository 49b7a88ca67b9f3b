import type { TopEntry } from '../lib/stats-lists';

interface TopListProps {
  title: string;
  entries: TopEntry[];
  /**
   * Makes each entry a toggle button (the analytics page filters by it); entries it returns
   * false for (the summed 'Other') stay plain.
   */
  pick?: {
    onPick: (entry: TopEntry) => void;
    /** The entry the page is filtered by, shown pressed. */
    active?: string;
    canPick?: (entry: TopEntry) => boolean;
  };
}

/** One breakdown (browsers, OS, …): its entries with their visits and a bar for the share. */
export function TopList({ title, entries, pick }: TopListProps) {
  const headingId = `top-${title.toLowerCase().replace(/\W+/g, '-')}`;
  const most = Math.max(1, ...entries.map((entry) => entry.visits));
  return (
    <section className="top-list" aria-labelledby={headingId}>
      <h3 id={headingId} className="top-list__title">
        {title}
      </h3>
      {entries.length === 0 ? (
        <p className="top-list__empty">No visits</p>
      ) : (
        <ol className="top-list__entries">
          {entries.map((entry) => {
            const content = (
              <>
                <span className="top-list__name">{entry.label}</span>
                <span className="top-list__visits tabular">{entry.visits}</span>
                <span
                  className="top-list__bar"
                  aria-hidden="true"
                  style={{ width: `${String((entry.visits / most) * 100)}%` }}
                />
              </>
            );
            return (
              <li key={entry.key} className="top-list__entry">
                {pick && (pick.canPick?.(entry) ?? true) ? (
                  <button
                    type="button"
                    className="top-list__pick"
                    aria-pressed={pick.active === entry.key}
                    onClick={() => pick.onPick(entry)}
                  >
                    {content}
                  </button>
                ) : (
                  content
                )}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
