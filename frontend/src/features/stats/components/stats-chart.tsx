import type { LinkStats } from '@shortener/contracts/web-stats';
import { useId, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
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

/** A bar's centre, as a share of the chart's width. */
function centreOf(index: number, width: number): number {
  return (index * (BAR + GAP) + BAR / 2) / width;
}

/**
 * Visits over time as stacked SVG bars (people below, bots above), told in words to screen
 * readers; one target over all the bars shows the nearest in a tooltip, a slider by keyboard.
 */
export function StatsChart({
  stats,
}: {
  /** A link's stats, or the account's (the analytics page): what the chart draws of them. */
  stats: Pick<LinkStats, 'series' | 'interval' | 'totals'>;
}) {
  const { series, interval, totals } = stats;
  const [picked, setPicked] = useState<number | null>(null);
  // Whether the tooltip is up: the pointer on the bars, or the keyboard's focus on them.
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const scrubbing = useRef(false);
  const tooltipId = useId();
  const peak = Math.max(1, ...series.map((point) => point.visits));
  const width = Math.max(1, series.length * (BAR + GAP) - GAP);
  const summary =
    `Visits per ${interval}: ${String(totals.humans)} by people and ${String(totals.bots)} ` +
    `by bots, at most ${String(peak === 1 && totals.visits === 0 ? 0 : peak)} in one ${interval}`;
  // The bar whose numbers are read out: the one picked, else the newest.
  const shown = picked !== null && picked < series.length ? picked : series.length - 1;
  const point = series[shown];
  const ticks = axisTicks(series.length);
  const tipped = (hovered || focused) && point !== undefined;
  const tipAt = centreOf(shown, width);

  /** The bar nearest to where the pointer is over the target. */
  function nearest(event: PointerEvent<HTMLElement>): number {
    const box = event.currentTarget.getBoundingClientRect();
    if (box.width <= 0) return shown;
    const at = ((event.clientX - box.left) / box.width) * width;
    const index = Math.round((at - BAR / 2) / (BAR + GAP));
    return Math.min(series.length - 1, Math.max(0, index));
  }

  function onPointerDown(event: PointerEvent<HTMLElement>) {
    scrubbing.current = true;
    // A finger that moves on keeps the bars, even off the target, until it lifts.
    if (event.pointerType !== 'mouse') event.currentTarget.setPointerCapture?.(event.pointerId);
    setHovered(true);
    setPicked(nearest(event));
  }

  function onPointerMove(event: PointerEvent<HTMLElement>) {
    if (event.pointerType === 'mouse' || scrubbing.current) {
      setHovered(true);
      setPicked(nearest(event));
    }
  }

  function onPointerEnd(event: PointerEvent<HTMLElement>) {
    scrubbing.current = false;
    // A mouse's tooltip goes when it leaves; a finger's stays up to be read.
    if (event.type === 'pointerleave' && event.pointerType === 'mouse') setHovered(false);
  }

  function onKeyDown(event: KeyboardEvent<HTMLElement>) {
    const moves: Record<string, number> = {
      ArrowLeft: shown - 1,
      ArrowDown: shown - 1,
      ArrowRight: shown + 1,
      ArrowUp: shown + 1,
      Home: 0,
      End: series.length - 1,
    };
    const next = moves[event.key];
    if (next === undefined) return;
    event.preventDefault();
    setPicked(Math.min(series.length - 1, Math.max(0, next)));
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
          {/* One target over all the bars (a bar of a month is a few pixels wide on a phone):
              the bar nearest the pointer or finger is picked, and the arrow keys move along. */}
          <div
            className="stats-chart__scrub"
            role="slider"
            tabIndex={0}
            aria-label="Bars"
            aria-orientation="horizontal"
            aria-valuemin={0}
            aria-valuemax={Math.max(0, series.length - 1)}
            aria-valuenow={shown}
            aria-valuetext={point ? bucketText(point, interval) : ''}
            aria-describedby={tipped ? tooltipId : undefined}
            onPointerDown={onPointerDown}
            onPointerMove={onPointerMove}
            onPointerUp={onPointerEnd}
            onPointerCancel={onPointerEnd}
            onPointerLeave={onPointerEnd}
            onFocus={() => setFocused(true)}
            onBlur={() => setFocused(false)}
            onKeyDown={onKeyDown}
          />
          {tipped && (
            <div
              id={tooltipId}
              role="tooltip"
              className={`stats-chart__tooltip tabular${
                tipAt < 0.2
                  ? ' stats-chart__tooltip--start'
                  : tipAt > 0.8
                    ? ' stats-chart__tooltip--end'
                    : ''
              }`}
              style={{ left: `${String(tipAt * 100)}%` }}
            >
              <span className="stats-chart__tooltip-date">{bucketLabel(point.t, interval)}</span>
              <span>{plural(point.humans, 'person', 'people')}</span>
              <span>{plural(point.bots, 'bot', 'bots')}</span>
            </div>
          )}
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
        <p className="stats-chart__readout tabular">{point ? bucketText(point, interval) : ''}</p>
        <span className="stats-chart__legend">
          <span className="stats-chart__key stats-chart__key--humans">People</span>
          <span className="stats-chart__key stats-chart__key--bots">Bots</span>
        </span>
      </figcaption>
    </figure>
  );
}
