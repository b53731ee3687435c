-- new_id('dlv') in SQL, the same shape as newId() in src/platform/ids.ts: the prefix, '_', and 22
-- base62 characters. The consent write (src/modules/evidence/consent-write.sql.ts) creates the
-- webhook deliveries and their attempt jobs inside its one statement, where the number of rows
-- (one per enabled destination) is known only to the database. Two random UUIDs (244 random bits)
-- are stretched by SHA-512 into 64 bytes; each character takes two of them modulo 62 (bias 2/65536).
CREATE FUNCTION new_id(prefix text) RETURNS text LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT prefix || '_' || string_agg(
    substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
      ((get_byte(r.b, 2 * i) * 256 + get_byte(r.b, 2 * i + 1)) % 62) + 1, 1),
    '' ORDER BY i)
  FROM (SELECT sha512(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())) AS b) AS r,
    generate_series(0, 21) AS i
$$;
