-- Day rollups of the usage counters (db/stores/usage.ts): one row per workspace, day and metric with the
-- bucket `d:YYYY-MM-DD`, kept up to date by every addition from now on; this sums the hour rows written before.
INSERT INTO `usage_counters` (`workspace_id`, `bucket`, `metric`, `value`)
SELECT `workspace_id`, 'd:' || substr(`bucket`, 1, 10), `metric`, sum(`value`) FROM `usage_counters`
WHERE `bucket` NOT LIKE 'd:%' GROUP BY `workspace_id`, substr(`bucket`, 1, 10), `metric`
ON CONFLICT (`workspace_id`, `bucket`, `metric`) DO UPDATE SET `value` = excluded.`value`;
