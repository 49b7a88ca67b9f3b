/**
 * The account rollups: per owner what the link rollups hold per link, plus a `link`
 * dimension (visits per link and day, the top links). The links service tells each link's
 * owner (analytics.link_owners); a link's visits count in its owner's account from the
 * moment it is told, those stored before included (ADD_OWNED_LINKS), and leave it with the
 * link (SUBTRACT_LINKS).
 */

/**
 * The CTEs ingest's rollup statement adds (after its `breakdowns`), from the same unnest
 * parameters: the visits of links with a known owner raise their owner's rows. Rows come
 * grouped and ordered by owner, so two transactions take their row locks in one order.
 */
export const ACCOUNT_ROLLUP_CTES = `
  owned_hours AS (
    SELECT o.owner_id, t.url_id, t.hour, t.visits, t.humans, t.bots
    FROM unnest($1::varchar[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[])
      AS t(url_id, hour, visits, humans, bots)
    JOIN analytics.link_owners o USING (url_id)
  ),
  account_hours AS (
    INSERT INTO analytics.account_hours AS h (owner_id, hour, visits, humans, bots)
    SELECT owner_id, to_timestamp(hour * 3600), sum(visits), sum(humans), sum(bots)
    FROM owned_hours GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (owner_id, hour) DO UPDATE SET
      visits = h.visits + EXCLUDED.visits,
      humans = h.humans + EXCLUDED.humans,
      bots = h.bots + EXCLUDED.bots
  ),
  owned_breakdowns AS (
    SELECT o.owner_id, b.hour, b.dimension, b.value, b.visits
    FROM breakdowns b JOIN analytics.link_owners o USING (url_id)
    UNION ALL
    SELECT owner_id, to_timestamp(hour * 3600), 'link', url_id, visits FROM owned_hours
  ),
  account_days AS (
    INSERT INTO analytics.account_breakdowns AS b (owner_id, day, dimension, value, visits)
    SELECT owner_id, (hour AT TIME ZONE 'UTC')::date AS day, dimension, value, sum(visits)
    FROM owned_breakdowns GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (owner_id, day, dimension, value) DO UPDATE SET visits = b.visits + EXCLUDED.visits
  ),
  account_recent AS (
    INSERT INTO analytics.account_breakdown_hours AS b (owner_id, hour, dimension, value, visits)
    SELECT owner_id, hour, dimension, value, sum(visits) FROM owned_breakdowns
    WHERE hour >= now() - interval '2 days'
    GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (owner_id, hour, dimension, value) DO UPDATE SET visits = b.visits + EXCLUDED.visits
  ),
  account_visitors AS (
    INSERT INTO analytics.account_visitor_days AS v (owner_id, day, visitor, last_seen)
    SELECT o.owner_id, date '1970-01-01' + t.day, t.visitor, max(t.last_seen)
    FROM unnest($11::varchar[], $12::int[], $13::bytea[], $14::timestamptz[])
      AS t(url_id, day, visitor, last_seen)
    JOIN analytics.link_owners o USING (url_id)
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (owner_id, day, visitor) DO UPDATE SET last_seen = EXCLUDED.last_seen
      WHERE v.last_seen < EXCLUDED.last_seen
  ),`;

/**
 * Records owners ($1 codes, $2 owners) not known yet, and adds what those links' rollups hold
 * so far to their owners' (under the links' exclusive locks: no batch of theirs is half
 * stored). Answers how many were new.
 */
export const ADD_OWNED_LINKS = `
  WITH fresh AS (
    INSERT INTO analytics.link_owners (url_id, owner_id)
    SELECT * FROM unnest($1::varchar[], $2::varchar[]) ON CONFLICT (url_id) DO NOTHING
    RETURNING url_id, owner_id
  ),
  hours AS (
    INSERT INTO analytics.account_hours AS a (owner_id, hour, visits, humans, bots)
    SELECT f.owner_id, h.hour, sum(h.visits), sum(h.humans), sum(h.bots)
    FROM analytics.visit_hours h JOIN fresh f USING (url_id)
    GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (owner_id, hour) DO UPDATE SET
      visits = a.visits + EXCLUDED.visits,
      humans = a.humans + EXCLUDED.humans,
      bots = a.bots + EXCLUDED.bots
  ),
  days AS (
    INSERT INTO analytics.account_breakdowns AS a (owner_id, day, dimension, value, visits)
    SELECT owner_id, day, dimension, value, sum(visits) FROM (
      SELECT f.owner_id, b.day, b.dimension, b.value, b.visits
      FROM analytics.visit_breakdowns b JOIN fresh f USING (url_id)
      UNION ALL
      SELECT f.owner_id, (h.hour AT TIME ZONE 'UTC')::date, 'link', h.url_id, h.visits
      FROM analytics.visit_hours h JOIN fresh f USING (url_id)
    ) AS owned
    GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (owner_id, day, dimension, value) DO UPDATE SET visits = a.visits + EXCLUDED.visits
  ),
  recent AS (
    INSERT INTO analytics.account_breakdown_hours AS a (owner_id, hour, dimension, value, visits)
    SELECT owner_id, hour, dimension, value, sum(visits) FROM (
      SELECT f.owner_id, b.hour, b.dimension, b.value, b.visits
      FROM analytics.visit_breakdown_hours b JOIN fresh f USING (url_id)
      UNION ALL
      SELECT f.owner_id, h.hour, 'link', h.url_id, h.visits
      FROM analytics.visit_hours h JOIN fresh f USING (url_id)
      WHERE h.hour >= now() - interval '2 days'
    ) AS owned
    GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
    ON CONFLICT (owner_id, hour, dimension, value) DO UPDATE SET visits = a.visits + EXCLUDED.visits
  ),
  visitors AS (
    INSERT INTO analytics.account_visitor_days AS a (owner_id, day, visitor, last_seen)
    SELECT f.owner_id, v.day, v.visitor, max(v.last_seen)
    FROM analytics.visitor_days v JOIN fresh f USING (url_id)
    GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
    ON CONFLICT (owner_id, day, visitor) DO UPDATE SET last_seen = EXCLUDED.last_seen
      WHERE a.last_seen < EXCLUDED.last_seen
  )
  SELECT count(*)::int AS added FROM fresh`;

/**
 * Takes what links ($1) hold in their rollups off their owners' (before the link rollups
 * are deleted, under the links' exclusive locks). Visitor-days are counted again after
 * (RECOUNT_VISITORS): a visitor of a deleted link may have visited another that day.
 */
export const SUBTRACT_LINKS = `
  WITH owned AS (
    SELECT url_id, owner_id FROM analytics.link_owners WHERE url_id = ANY($1::varchar[])
  ),
  hours AS (
    UPDATE analytics.account_hours a
    SET visits = a.visits - s.visits, humans = a.humans - s.humans, bots = a.bots - s.bots
    FROM (
      SELECT o.owner_id, h.hour, sum(h.visits) AS visits, sum(h.humans) AS humans,
             sum(h.bots) AS bots
      FROM analytics.visit_hours h JOIN owned o USING (url_id) GROUP BY 1, 2
    ) AS s
    WHERE a.owner_id = s.owner_id AND a.hour = s.hour
  ),
  days AS (
    UPDATE analytics.account_breakdowns a SET visits = a.visits - s.visits
    FROM (
      SELECT owner_id, day, dimension, value, sum(visits) AS visits FROM (
        SELECT o.owner_id, b.day, b.dimension, b.value, b.visits
        FROM analytics.visit_breakdowns b JOIN owned o USING (url_id)
        UNION ALL
        SELECT o.owner_id, (h.hour AT TIME ZONE 'UTC')::date, 'link', h.url_id, h.visits
        FROM analytics.visit_hours h JOIN owned o USING (url_id)
      ) AS each GROUP BY 1, 2, 3, 4
    ) AS s
    WHERE (a.owner_id, a.day, a.dimension, a.value) = (s.owner_id, s.day, s.dimension, s.value)
  ),
  recent AS (
    UPDATE analytics.account_breakdown_hours a SET visits = a.visits - s.visits
    FROM (
      SELECT owner_id, hour, dimension, value, sum(visits) AS visits FROM (
        SELECT o.owner_id, b.hour, b.dimension, b.value, b.visits
        FROM analytics.visit_breakdown_hours b JOIN owned o USING (url_id)
        UNION ALL
        SELECT o.owner_id, h.hour, 'link', h.url_id, h.visits
        FROM analytics.visit_hours h JOIN owned o USING (url_id)
        WHERE h.hour >= now() - interval '2 days'
      ) AS each GROUP BY 1, 2, 3, 4
    ) AS s
    WHERE (a.owner_id, a.hour, a.dimension, a.value) = (s.owner_id, s.hour, s.dimension, s.value)
  )
  SELECT DISTINCT o.owner_id, to_char(v.day, 'YYYY-MM-DD') AS day
  FROM analytics.visitor_days v JOIN owned o USING (url_id)`;

/** The rows SUBTRACT_LINKS left at zero go ($1: the owners), so no list names a value with none. */
export const DROP_EMPTY = [
  'DELETE FROM analytics.account_hours WHERE owner_id = ANY($1::varchar[]) AND visits <= 0',
  'DELETE FROM analytics.account_breakdowns WHERE owner_id = ANY($1::varchar[]) AND visits <= 0',
  `DELETE FROM analytics.account_breakdown_hours
   WHERE owner_id = ANY($1::varchar[]) AND visits <= 0`,
];

/**
 * Owners' visitor-days of some days ($1 owners, $2 days, pairwise) counted again from their
 * links', without those of links being deleted ($3), whose rows are still there: the days
 * cleared, then filled (two statements: one cannot delete and insert the same row).
 */
export const RECOUNT_VISITORS: readonly [clear: string, fill: string] = [
  `DELETE FROM analytics.account_visitor_days a
   USING unnest($1::varchar[], $2::date[]) AS f(owner_id, day)
   WHERE a.owner_id = f.owner_id AND a.day = f.day`,
  `INSERT INTO analytics.account_visitor_days (owner_id, day, visitor, last_seen)
   SELECT f.owner_id, f.day, v.visitor, max(v.last_seen)
   FROM unnest($1::varchar[], $2::date[]) AS f(owner_id, day)
   JOIN analytics.link_owners o ON o.owner_id = f.owner_id
   JOIN analytics.visitor_days v ON v.url_id = o.url_id AND v.day = f.day
   WHERE NOT (o.url_id = ANY($3::varchar[]))
   GROUP BY 1, 2, 3`,
];
