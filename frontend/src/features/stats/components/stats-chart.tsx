import type { LinkStats } from '@shortener/contracts/web-stats';
import { useState, type KeyboardEvent } from 'react';
import { axisTicks, bucketLabel } from '../lib/chart-axis';

/** Each bucket's bar, in the chart's own units: a bar 10 wide with a gap of 2. */
const BAR = 10;
const GAP = 2;
const HEIGHT = 100;

function plural(count: number, one: string, many: string): string {
  return `${String(count)} ${count === 1 ? one : many}`;
}

function bucketText(point: LinkStats['series'][number], interval: LinkStats['interval']) {
  return (
    `${bucketLabel(point.t, interval)}: ${plural(point.humans, 'person', 'people')}, ` +
    plural(point.bots, 'bot', 'bots')
  );
}

/**
 * Visits over time as stacked bars, people below and bots above, drawn as plain SVG (no
 * chart library), dated under the axis. The picture stretches to the width it is given; its
 * numbers are told in words to screen readers, and each bar's are read out below the chart
 * when it is tapped, clicked or focused (arrow keys move between bars).
 */
export function StatsChart({ stats }: { stats: LinkStats }) {
  const { series, interval, totals } = stats;
  const [picked, setPicked] = useState<number | null>(null);
  const peak = Math.max(1, ...series.map((point) => point.visits));
  const width = Math.max(1, series.length * (BAR + GAP) - GAP);
  const summary =
    `Visits per ${interval}: ${String(totals.humans)} by people and ${String(totals.bots)} ` +
    `by bots, at most ${String(peak === 1 && totals.visits === 0 ? 0 : peak)} in one ${interval}`;
  // The bar whose numbers are read out: the one picked, else the newest.
  const shown = picked !== null && picked < series.length ? picked : series.length - 1;
  const point = series[shown];
  const ticks = axisTicks(series.length);

  function onKeyDown(event: KeyboardEvent<HTMLButtonElement>, index: number) {
    const moves: Record<string, number> = {
      ArrowLeft: index - 1,
      ArrowRight: index + 1,
      Home: 0,
      End: series.length - 1,
    };
    const next = moves[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const target = Math.min(series.length - 1, Math.max(0, next));
    setPicked(target);
    const buttons = event.currentTarget.parentElement?.querySelectorAll('button');
    buttons?.[target]?.focus();
  }

  return (
    <figure className="stats-chart">
      <div className="stats-chart__plot">
        <span className="stats-chart__peak tabular" aria-hidden="true">
          {totals.visits === 0 ? 0 : peak}
        </span>
        <div className="stats-chart__area">
          <svg
            className="stats-chart__svg"
            viewBox={`0 0 ${String(width)} ${String(HEIGHT)}`}
            preserveAspectRatio="none"
            role="img"
            aria-label={summary}
          >
            <line className="stats-chart__base" x1={0} x2={width} y1={HEIGHT} y2={HEIGHT} />
            {series.map((bucket, index) => {
              const x = index * (BAR + GAP);
              const humans = (bucket.humans / peak) * HEIGHT;
              const bots = (bucket.bots / peak) * HEIGHT;
              return (
                <g
                  key={bucket.t}
                  data-t={bucket.t}
                  data-visits={bucket.visits}
                  className={index === shown ? 'stats-chart__bucket--picked' : undefined}
                >
                  <title>{bucketText(bucket, interval)}</title>
                  {index === shown && (
                    <rect
                      className="stats-chart__pick"
                      x={x - 1}
                      y={0}
                      width={BAR + 2}
                      height={HEIGHT}
                    />
                  )}
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
          {/* Over the bars, one target each: a tap, a click or the focus reads its numbers out.
            One Tab stop for them all; the arrow keys move between them. */}
          <div className="stats-chart__targets" role="group" aria-label="Bars">
            {series.map((bucket, index) => (
              <button
                key={bucket.t}
                type="button"
                className="stats-chart__target"
                tabIndex={index === shown ? 0 : -1}
                aria-label={bucketText(bucket, interval)}
                aria-pressed={index === shown}
                onClick={() => setPicked(index)}
                onFocus={() => setPicked(index)}
                onKeyDown={(event) => onKeyDown(event, index)}
              />
            ))}
          </div>
          <div className="stats-chart__axis" aria-hidden="true">
            {ticks.map((index) => {
              const bucket = series[index];
              if (!bucket) return null;
              const [day, hour] = bucketLabel(bucket.t, interval).split(' ');
              const edge = index === 0 ? 'start' : index === series.length - 1 ? 'end' : 'middle';
              return (
                <span
                  key={bucket.t}
                  className={`stats-chart__tick stats-chart__tick--${edge} tabular`}
                  style={
                    edge === 'middle'
                      ? { left: `${String(((index + 0.5) / series.length) * 100)}%` }
                      : undefined
                  }
                >
                  {hour && <span>{hour}</span>}
                  <span>{day}</span>
                </span>
              );
            })}
          </div>
        </div>
      </div>
      <figcaption className="stats-chart__caption">
        <p className="stats-chart__readout tabular" aria-live="polite">
          {point ? bucketText(point, interval) : ''}
        </p>
        <span className="stats-chart__legend">
          <span className="stats-chart__key stats-chart__key--humans">People</span>
          <span className="stats-chart__key stats-chart__key--bots">Bots</span>
        </span>
      </figcaption>
    </figure>
  );
}
