import { Link } from 'react-router-dom';
import {
  ANALYTICS_FILTERS,
  type AnalyticsFilter,
  type AnalyticsFilters,
} from '../lib/analytics-view';
import { FILTER_NAMES, filterValueLabel } from '../lib/filter-labels';

interface FilterChipsProps {
  filters: AnalyticsFilters;
  onRemove: (name: AnalyticsFilter) => void;
  onClear: () => void;
}

/** The filters in force, one chip each with a button that removes it; all of them at once. */
export function FilterChips({ filters, onRemove, onClear }: FilterChipsProps) {
  const set = ANALYTICS_FILTERS.filter((name) => filters[name] !== undefined);
  if (set.length === 0) {
    return <p className="analytics__hint">Select an entry of any list to filter by it.</p>;
  }
  return (
    <div className="analytics__filters">
      <ul className="analytics__chips" aria-label="Filters">
        {set.map((name) => {
          const value = filters[name] ?? '';
          const text = `${FILTER_NAMES[name]}: ${filterValueLabel(name, value)}`;
          return (
            <li key={name} className="analytics__chip">
              <span className="analytics__chip-text">{text}</span>
              {name === 'link' && (
                <Link className="analytics__chip-link" to={`/profile/${encodeURIComponent(value)}`}>
                  Open
                </Link>
              )}
              <button
                type="button"
                className="analytics__chip-remove"
                aria-label={`Remove filter ${text}`}
                onClick={() => onRemove(name)}
              >
                <span aria-hidden="true">×</span>
              </button>
            </li>
          );
        })}
      </ul>
      {set.length > 1 && (
        <button type="button" className="button button--secondary" onClick={onClear}>
          Clear filters
        </button>
      )}
    </div>
  );
}
