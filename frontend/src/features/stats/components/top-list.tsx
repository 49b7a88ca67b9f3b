interface Entry {
  key: string;
  label: string;
  visits: number;
}

/** One breakdown (browsers, OS, …): its entries with their visits and a bar for the share. */
export function TopList({ title, entries }: { title: string; entries: Entry[] }) {
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
          {entries.map((entry) => (
            <li key={entry.key} className="top-list__entry">
              <span className="top-list__name">{entry.label}</span>
              <span className="top-list__visits tabular">{entry.visits}</span>
              <span
                className="top-list__bar"
                aria-hidden="true"
                style={{ width: `${String((entry.visits / most) * 100)}%` }}
              />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
