CREATE TABLE "affiliate" (
	"user_id" text PRIMARY KEY NOT NULL,
	"code" text NOT NULL,
	"connect_account_id" text,
	"connect_status" text DEFAULT 'none' NOT NULL,
	"payouts_held" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "affiliate_earning" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"affiliate_id" text NOT NULL,
	"referred_user_id" text NOT NULL,
	"order_id" uuid,
	"charge_id" uuid,
	"refund_id" uuid,
	"kind" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"payable_at" timestamp with time zone,
	"payout_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "affiliate_payout" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"affiliate_id" text NOT NULL,
	"period" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"status" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"transfer_id" text,
	"error" text,
	"approved_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"paid_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "charge" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_id" text NOT NULL,
	"order_id" uuid,
	"kind" text NOT NULL,
	"attempt" integer DEFAULT 1 NOT NULL,
	"amount_cents" integer NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"breakdown" jsonb,
	"provider" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"payment_intent_id" text,
	"status" text NOT NULL,
	"failure_reason" text,
	"action_url" text,
	"refunded_cents" integer DEFAULT 0 NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_message" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text,
	"to_address" text NOT NULL,
	"template_type" text NOT NULL,
	"subject" text NOT NULL,
	"html" text NOT NULL,
	"text" text NOT NULL,
	"unsubscribe_url" text,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"dedupe_key" text,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "notification_preference" (
	"user_id" text PRIMARY KEY NOT NULL,
	"disabled" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_customer" (
	"owner_id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"customer_id" text NOT NULL,
	"payment_method_id" text,
	"card_brand" text,
	"card_last4" text,
	"card_exp_month" integer,
	"card_exp_year" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payment_event" (
	"id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp with time zone,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "referral" (
	"referred_user_id" text PRIMARY KEY NOT NULL,
	"affiliate_id" text NOT NULL,
	"code" text NOT NULL,
	"share_bps" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ends_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "refund" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"charge_id" uuid NOT NULL,
	"owner_id" text NOT NULL,
	"amount_cents" integer NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"idempotency_key" text NOT NULL,
	"provider_refund_id" text,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "affiliate" ADD CONSTRAINT "affiliate_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_earning" ADD CONSTRAINT "affiliate_earning_affiliate_id_user_id_fk" FOREIGN KEY ("affiliate_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_earning" ADD CONSTRAINT "affiliate_earning_referred_user_id_user_id_fk" FOREIGN KEY ("referred_user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_earning" ADD CONSTRAINT "affiliate_earning_order_id_order_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."order"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_earning" ADD CONSTRAINT "affiliate_earning_charge_id_charge_id_fk" FOREIGN KEY ("charge_id") REFERENCES "public"."charge"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_earning" ADD CONSTRAINT "affiliate_earning_refund_id_refund_id_fk" FOREIGN KEY ("refund_id") REFERENCES "public"."refund"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_payout" ADD CONSTRAINT "affiliate_payout_affiliate_id_user_id_fk" FOREIGN KEY ("affiliate_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "affiliate_payout" ADD CONSTRAINT "affiliate_payout_approved_by_user_id_fk" FOREIGN KEY ("approved_by") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "charge" ADD CONSTRAINT "charge_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "charge" ADD CONSTRAINT "charge_order_id_order_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."order"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "charge" ADD CONSTRAINT "charge_created_by_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_message" ADD CONSTRAINT "email_message_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_message" ADD CONSTRAINT "email_message_created_by_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_preference" ADD CONSTRAINT "notification_preference_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_customer" ADD CONSTRAINT "payment_customer_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "referral" ADD CONSTRAINT "referral_referred_user_id_user_id_fk" FOREIGN KEY ("referred_user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "referral" ADD CONSTRAINT "referral_affiliate_id_user_id_fk" FOREIGN KEY ("affiliate_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refund" ADD CONSTRAINT "refund_charge_id_charge_id_fk" FOREIGN KEY ("charge_id") REFERENCES "public"."charge"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refund" ADD CONSTRAINT "refund_owner_id_user_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "affiliate_code_lower_idx" ON "affiliate" USING btree (lower("code"));--> statement-breakpoint
CREATE UNIQUE INDEX "affiliate_earning_charge_idx" ON "affiliate_earning" USING btree ("charge_id") WHERE kind = 'earning';--> statement-breakpoint
CREATE UNIQUE INDEX "affiliate_earning_refund_idx" ON "affiliate_earning" USING btree ("refund_id") WHERE kind = 'reversal';--> statement-breakpoint
CREATE INDEX "affiliate_earning_affiliate_idx" ON "affiliate_earning" USING btree ("affiliate_id","created_at","id");--> statement-breakpoint
CREATE INDEX "affiliate_earning_order_idx" ON "affiliate_earning" USING btree ("order_id");--> statement-breakpoint
CREATE UNIQUE INDEX "affiliate_payout_period_idx" ON "affiliate_payout" USING btree ("affiliate_id","period");--> statement-breakpoint
CREATE UNIQUE INDEX "affiliate_payout_key_idx" ON "affiliate_payout" USING btree ("idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "charge_idempotency_key_idx" ON "charge" USING btree ("idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "charge_payment_intent_idx" ON "charge" USING btree ("payment_intent_id");--> statement-breakpoint
CREATE UNIQUE INDEX "charge_live_per_order_idx" ON "charge" USING btree ("order_id") WHERE kind = 'order' AND status IN ('pending', 'processing', 'requires_action', 'succeeded', 'refunded');--> statement-breakpoint
CREATE INDEX "charge_owner_created_idx" ON "charge" USING btree ("owner_id","created_at","id");--> statement-breakpoint
CREATE INDEX "charge_created_idx" ON "charge" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "charge_pending_idx" ON "charge" USING btree ("updated_at") WHERE status = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "email_message_dedupe_idx" ON "email_message" USING btree ("dedupe_key");--> statement-breakpoint
CREATE INDEX "email_message_created_idx" ON "email_message" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "email_message_user_created_idx" ON "email_message" USING btree ("user_id","created_at","id");--> statement-breakpoint
CREATE INDEX "payment_event_unprocessed_idx" ON "payment_event" USING btree ("received_at") WHERE processed_at IS NULL;--> statement-breakpoint
CREATE INDEX "referral_affiliate_idx" ON "referral" USING btree ("affiliate_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "refund_idempotency_key_idx" ON "refund" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "refund_charge_idx" ON "refund" USING btree ("charge_id");--> statement-breakpoint
CREATE INDEX "refund_owner_created_idx" ON "refund" USING btree ("owner_id","created_at","id");