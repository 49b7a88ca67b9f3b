import { CreateAnalytics1763950000000 } from './1763950000000-create-analytics';
import { VisitStats1764000000000 } from './1764000000000-visit-stats';

/** Every migration of the `analytics` schema, oldest first. */
export const analyticsMigrations = [CreateAnalytics1763950000000, VisitStats1764000000000];
