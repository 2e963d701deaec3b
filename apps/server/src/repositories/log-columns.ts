import { Prisma } from '@secadmin/db';

/** The log_entries columns under the names of the Prisma model, for raw queries. */
export const LOG_COLUMNS = Prisma.sql`
  id, timestamp, event, actor_id AS "actorId", actor_email AS "actorEmail",
  actor_email_redacted AS "actorEmailRedacted", actor_type AS "actorType",
  target_id AS "targetId", target_type AS "targetType", ip, user_agent AS "userAgent",
  city, country, region, lat, lng, result, trace_id AS "traceId", metadata`;
