-- Session tokens are stored as their SHA-256 (hex) from now on (issue 10, finding 3): hash the
-- tokens of sessions that exist at upgrade, so nobody is signed out. sha256() is built into
-- PostgreSQL 11+ and PGlite. Raw tokens are 32 alphanumerics; a 64-hex value is already a hash.
UPDATE "session" SET "token" = encode(sha256(convert_to("token", 'UTF8')), 'hex') WHERE "token" !~ '^[0-9a-f]{64}$';
