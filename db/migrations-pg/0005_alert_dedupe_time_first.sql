-- metrics.onAlert dedupe keys lead with the alert's startsAt instead of its fingerprint
-- (integrations/metrics/triggers/on-alert.ts): "<fingerprint>:<status>:<startsAt>" becomes
-- "<startsAt>:<status>:<fingerprint>", so an episode stored before the upgrade is still recognised
-- when Alertmanager repeats it after. Fingerprints are 16 hexadecimal digits.
UPDATE events SET dedupe_key = substr(dedupe_key, 25) || ':firing:' || substr(dedupe_key, 1, 16)
 WHERE type = 'metrics.alert' AND dedupe_key ~ '^[0-9a-f]{16}:firing:';--> statement-breakpoint
UPDATE events SET dedupe_key = substr(dedupe_key, 27) || ':resolved:' || substr(dedupe_key, 1, 16)
 WHERE type = 'metrics.alert' AND dedupe_key ~ '^[0-9a-f]{16}:resolved:';
