import { STATS_RANGES, type StatsRange } from '@shortener/contracts/web-analytics';
import { useId, useState, type FormEvent } from 'react';
import { dayOf, periodFromDays } from '../lib/analytics-view';

const RANGE_LABELS: Record<StatsRange, string> = {
  '24h': '24h',
  '7d': '7d',
  '30d': '30d',
  all: 'All',
};

interface RangePickerProps {
  range: StatsRange;
  period: { from: string; to: string } | undefined;
  onRange: (range: StatsRange) => void;
  onPeriod: (period: { from: string; to: string }) => void;
}

/** The preset ranges, and 'Custom': two days (UTC) from and to, both included. */
export function RangePicker({ range, period, onRange, onPeriod }: RangePickerProps) {
  const [choosing, setChoosing] = useState(false);
  const custom = period !== undefined || choosing;
  return (
    <div className="analytics__period">
      <div className="stats__ranges" role="group" aria-label="Range">
        {STATS_RANGES.map((option) => (
          <button
            key={option}
            type="button"
            className="stats__range"
            aria-pressed={!custom && range === option}
            onClick={() => {
              setChoosing(false);
              onRange(option);
            }}
          >
            {RANGE_LABELS[option]}
          </button>
        ))}
        <button
          type="button"
          className="stats__range"
          aria-pressed={custom}
          onClick={() => setChoosing(true)}
        >
          Custom
        </button>
      </div>
      {custom && (
        <PeriodForm
          // A period from the URL (back, forward) fills the form again.
          key={period ? `${period.from}/${period.to}` : 'new'}
          period={period}
          onPeriod={(chosen) => {
            setChoosing(false);
            onPeriod(chosen);
          }}
        />
      )}
    </div>
  );
}

function PeriodForm({
  period,
  onPeriod,
}: {
  period: { from: string; to: string } | undefined;
  onPeriod: (period: { from: string; to: string }) => void;
}) {
  const id = useId();
  const [first, setFirst] = useState(period ? dayOf(period.from) : '');
  const [last, setLast] = useState(period ? dayOf(period.to) : '');
  const [error, setError] = useState<string | null>(null);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const chosen = periodFromDays(first, last);
    if (!chosen) {
      setError('Choose a first and a last day, the first not after the last.');
      return;
    }
    setError(null);
    onPeriod(chosen);
  }

  return (
    <form className="analytics__custom" aria-label="Custom range" onSubmit={submit} noValidate>
      <div className="analytics__field">
        <label htmlFor={`${id}-from`}>From</label>
        <input
          id={`${id}-from`}
          className="analytics__input"
          type="date"
          value={first}
          onChange={(event) => setFirst(event.target.value)}
        />
      </div>
      <div className="analytics__field">
        <label htmlFor={`${id}-to`}>To</label>
        <input
          id={`${id}-to`}
          className="analytics__input"
          type="date"
          value={last}
          onChange={(event) => setLast(event.target.value)}
        />
      </div>
      <button type="submit" className="button button--primary">
        Apply
      </button>
      <p className="analytics__note">Whole days, in UTC, both included.</p>
      {error && (
        <p className="analytics__error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
