-- The wallet's ledger is append-only (docs/wallet.md): an entry is never changed, and removed only by the
-- cascade of its owner's account being erased (the account row is already gone when the cascade runs).
CREATE FUNCTION wallet_entry_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM "user" WHERE id = OLD.owner_id) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'wallet_entry is append-only: % refused', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER wallet_entry_append_only BEFORE UPDATE OR DELETE ON wallet_entry
  FOR EACH ROW EXECUTE FUNCTION wallet_entry_append_only();
