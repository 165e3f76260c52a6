CREATE TABLE "receipt" (
	"number" integer PRIMARY KEY NOT NULL,
	"owner_id" text NOT NULL,
	"kind" text NOT NULL,
	"source" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"paid_with" text NOT NULL,
	"description" text NOT NULL,
	"order_number" text,
	"issuer" jsonb NOT NULL,
	"customer" jsonb NOT NULL,
	"issued_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "receipt_counter" (
	"id" text PRIMARY KEY NOT NULL,
	"last_number" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallet" (
	"owner_id" text PRIMARY KEY NOT NULL,
	"balance_cents" integer DEFAULT 0 NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"auto_recharge" boolean DEFAULT false NOT NULL,
	"recharge_threshold_cents" integer DEFAULT 0 NOT NULL,
	"recharge_amount_cents" integer DEFAULT 0 NOT NULL,
	"recharge_armed" boolean DEFAULT true NOT NULL,
	"recharge_crossings" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "wallet_balance_not_negative" CHECK ("wallet"."balance_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "wallet_entry" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_id" text NOT NULL,
	"kind" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"balance_after_cents" integer NOT NULL,
	"description" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"charge_id" uuid,
	"order_id" uuid,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallet_top_up" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_id" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"automatic" boolean DEFAULT false NOT NULL,
	"provider" text NOT NULL,
	"customer_id" text,
	"payment_method_id" text,
	"idempotency_key" text NOT NULL,
	"payment_intent_id" text,
	"status" text NOT NULL,
	"failure_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "receipt" ADD CONSTRAINT "receipt_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet" ADD CONSTRAINT "wallet_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_entry" ADD CONSTRAINT "wallet_entry_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_entry" ADD CONSTRAINT "wallet_entry_charge_id_charge_id_fk" FOREIGN KEY ("charge_id") REFERENCES "public"."charge"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_entry" ADD CONSTRAINT "wallet_entry_order_id_order_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."order"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_entry" ADD CONSTRAINT "wallet_entry_created_by_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "wallet_top_up" ADD CONSTRAINT "wallet_top_up_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "receipt_source_idx" ON "receipt" USING btree ("source");--> statement-breakpoint
CREATE INDEX "receipt_owner_issued_idx" ON "receipt" USING btree ("owner_id","issued_at");--> statement-breakpoint
CREATE UNIQUE INDEX "wallet_entry_idempotency_key_idx" ON "wallet_entry" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "wallet_entry_owner_created_idx" ON "wallet_entry" USING btree ("owner_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "wallet_top_up_idempotency_key_idx" ON "wallet_top_up" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "wallet_top_up_owner_created_idx" ON "wallet_top_up" USING btree ("owner_id","created_at");--> statement-breakpoint
CREATE INDEX "wallet_top_up_pending_idx" ON "wallet_top_up" USING btree ("updated_at") WHERE status = 'pending';