import { Component, Suspense, type ReactNode } from 'react';
import { ErrorMessage, Loading } from '../../components/feedback';
import { retryingLazy } from '../../lib/lazy-page';
import type { StatsSectionProps } from './components/stats-section';

// The stats code (chart, lists, live stream, QR code) is a chunk of its own, fetched when a
// link's detail is shown: neither the home page nor the rest of the detail waits for it.
// Without the network it says so in the section, and comes by itself once it is back.
const { Suspending: StatsSection } = retryingLazy<StatsSectionProps>(
  async () => (await import('./components/stats-section')).default,
  {
    frame: (message) => (
      <section className="stats" aria-label="Stats">
        {message}
      </section>
    ),
  },
);

/** Whatever goes wrong in the stats stays in the stats: the spec's page around them stands. */
class StatsBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override render() {
    return this.state.failed ? (
      <section className="stats" aria-label="Stats">
        <ErrorMessage>The stats could not be shown.</ErrorMessage>
      </section>
    ) : (
      this.props.children
    );
  }
}

/** The stats of one link, loaded lazily; its failures never break the page around it. */
export function LinkStats(props: StatsSectionProps) {
  return (
    <StatsBoundary>
      <Suspense fallback={<Loading tall={props.visitCount !== 0}>Loading stats…</Loading>}>
        <StatsSection {...props} />
      </Suspense>
    </StatsBoundary>
  );
}
