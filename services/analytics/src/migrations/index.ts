import { CreateAnalytics1763950000000 } from './1763950000000-create-analytics';

/** Every migration of the `analytics` schema, oldest first. */
export const analyticsMigrations = [CreateAnalytics1763950000000];
