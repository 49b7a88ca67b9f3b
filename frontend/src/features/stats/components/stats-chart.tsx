import type { LinkStats } from '@shortener/contracts/web-stats';
import { formatDate } from '../../../lib/format';

/** Each bucket's bar, in the chart's own units: a bar 10 wide with a gap of 2. */
const BAR = 10;
const GAP = 2;
const HEIGHT = 100;

function label(t: number, interval: LinkStats['interval']): string {
  const date = new Date(t);
  return interval === 'hour'
    ? `${String(date.getHours()).padStart(2, '0')}:00`
    : formatDate(t).slice(0, 5);
}

/**
 * Visits over time as stacked bars, people below and bots above, drawn as plain SVG (no
 * chart library). The picture stretches to the width it is given; its numbers are told in
 * words to screen readers and in each bar's title to a pointer.
 */
export function StatsChart({ stats }: { stats: LinkStats }) {
  const { series, interval, totals } = stats;
  const peak = Math.max(1, ...series.map((point) => point.visits));
  const width = Math.max(1, series.length * (BAR + GAP) - GAP);
  const first = series[0];
  const last = series.at(-1);
  const summary =
    `Visits per ${interval}: ${String(totals.humans)} by people and ${String(totals.bots)} ` +
    `by bots, at most ${String(peak === 1 && totals.visits === 0 ? 0 : peak)} in one ${interval}`;

  return (
    <figure className="stats-chart">
      <div className="stats-chart__plot">
        <span className="stats-chart__peak tabular" aria-hidden="true">
          {totals.visits === 0 ? 0 : peak}
        </span>
        <svg
          className="stats-chart__svg"
          viewBox={`0 0 ${String(width)} ${String(HEIGHT)}`}
          preserveAspectRatio="none"
          role="img"
          aria-label={summary}
        >
          <line className="stats-chart__base" x1={0} x2={width} y1={HEIGHT} y2={HEIGHT} />
          {series.map((point, index) => {
            const x = index * (BAR + GAP);
            const humans = (point.humans / peak) * HEIGHT;
            const bots = (point.bots / peak) * HEIGHT;
            return (
              <g key={point.t} data-t={point.t} data-visits={point.visits}>
                <title>
                  {`${label(point.t, interval)}: ${String(point.humans)} people, ${String(point.bots)} bots`}
                </title>
                {humans > 0 && (
                  <rect
                    className="stats-chart__humans"
                    x={x}
                    y={HEIGHT - humans}
                    width={BAR}
                    height={humans}
                  />
                )}
                {bots > 0 && (
                  <rect
                    className="stats-chart__bots"
                    x={x}
                    y={HEIGHT - humans - bots}
                    width={BAR}
                    height={bots}
                  />
                )}
              </g>
            );
          })}
        </svg>
      </div>
      <figcaption className="stats-chart__caption">
        <span className="tabular">{first ? label(first.t, interval) : ''}</span>
        <span className="stats-chart__legend">
          <span className="stats-chart__key stats-chart__key--humans">People</span>
          <span className="stats-chart__key stats-chart__key--bots">Bots</span>
        </span>
        <span className="tabular">{last ? label(last.t, interval) : ''}</span>
      </figcaption>
    </figure>
  );
}
