import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  PaymentAuthError,
  PaymentRejectedError,
  PaymentUnavailableError,
  type PaymentProvider,
} from '../../modules/payments/payment-provider.ts';
import {
  loadFixtures,
  loadStripeApi,
  startStripeFake,
  type FakeAnswer,
  type FakeRequest,
  type StripeFake,
} from './stripe-fake.ts';
import { STRIPE_API_VERSION, createStripePayments } from './stripe-payments.ts';

/**
 * Contract tests of the Connect half of the Stripe provider (affiliate payouts): the Express
 * account, its onboarding link, reading it back, and transfers. Every request goes through the
 * official SDK to the fake that validates it against Stripe's OpenAPI file (spec3.yaml, API
 * 2023-08-16) and is answered with Stripe's own fixtures (fixtures3.json): `account`,
 * `account_link`, `transfer`. After each test: no request failed validation, every POST carried an
 * Idempotency-Key, every request asked for the pinned API version.
 */

const SECRET_KEY = 'sk_test_layerline_connect';

type Json = Record<string, any>;

let fake: StripeFake;
let fixtures: Record<string, Json>;
let payments: PaymentProvider;
let expectInvalid = false;

/** Stripe's answers for the Connect calls, from its fixtures with the request's values. */
const connectAnswers =
  (account: Partial<Json> = {}): FakeAnswer =>
  (request) => {
    const body = request.body;
    switch (request.operationId) {
      case 'PostAccounts':
        return {
          status: 200,
          body: {
            ...structuredClone(fixtures.account!),
            id: 'acct_1Layerline000001',
            type: 'express',
            email: body.email,
            metadata: body.metadata ?? {},
            ...account,
          },
        };
      case 'GetAccountsAccount':
        return {
          status: 200,
          body: { ...structuredClone(fixtures.account!), id: request.path.split('/')[3], ...account },
        };
      case 'PostAccountLinks':
        return {
          status: 200,
          body: {
            ...structuredClone(fixtures.account_link!),
            url: `https://connect.stripe.com/setup/e/${body.account}/abc123`,
          },
        };
      case 'PostTransfers':
        return {
          status: 200,
          body: {
            ...structuredClone(fixtures.transfer!),
            id: 'tr_1Layerline000001',
            amount: Number(body.amount),
            currency: body.currency,
            destination: body.destination,
            metadata: body.metadata ?? {},
          },
        };
      default:
        return undefined;
    }
  };

beforeAll(async () => {
  const api = await loadStripeApi();
  fixtures = loadFixtures();
  fake = await startStripeFake(api, fixtures);
  payments = createStripePayments({
    secretKey: SECRET_KEY,
    webhookSecret: 'whsec_connect',
    host: fake.host,
    port: fake.port,
    protocol: 'http',
  });
}, 60_000);

afterAll(async () => {
  await fake?.close();
});

beforeEach(() => {
  fake.requests.length = 0;
  fake.answer(connectAnswers());
  expectInvalid = false;
});

afterEach(() => {
  if (expectInvalid) return;
  for (const request of fake.requests) {
    const call = `${request.method} ${request.path}`;
    expect({ call, errors: request.errors }).toEqual({ call, errors: [] });
    expect(request.operationId, call).not.toBeNull();
    expect(request.headers['stripe-version'], call).toBe(STRIPE_API_VERSION);
    expect(request.headers.authorization, call).toBe(`Bearer ${SECRET_KEY}`);
    if (request.method === 'POST') expect(request.headers['idempotency-key'], call).toMatch(/^.{1,255}$/);
  }
});

const only = (operationId: string): FakeRequest => {
  const found = fake.requests.filter((request) => request.operationId === operationId);
  expect(found).toHaveLength(1);
  return found[0]!;
};

describe('Connect onboarding', () => {
  it('creates an Express account that can receive transfers, under the caller’s key', async () => {
    const { accountId } = await payments.createConnectedAccount({
      userId: 'usr_7',
      email: 'ada@example.com',
      country: 'US',
      idempotencyKey: 'affiliate:usr_7:connect-account',
    });
    expect(accountId).toBe('acct_1Layerline000001');
    const request = only('PostAccounts');
    expect(request.path).toBe('/v1/accounts');
    expect(request.body).toEqual({
      type: 'express',
      email: 'ada@example.com',
      country: 'US',
      capabilities: { transfers: { requested: 'true' } },
      metadata: { user_id: 'usr_7' },
    });
    expect(request.headers['idempotency-key']).toBe('affiliate:usr_7:connect-account');
  });

  it('leaves the country to onboarding when it is not known', async () => {
    await payments.createConnectedAccount({
      userId: 'usr_8',
      email: 'bea@example.com',
      idempotencyKey: 'affiliate:usr_8:connect-account',
    });
    expect(only('PostAccounts').body.country).toBeUndefined();
  });

  it('answers a one-time account_onboarding link with our return and refresh pages', async () => {
    const { url } = await payments.createAccountLink({
      accountId: 'acct_1Layerline000001',
      returnUrl: 'https://print.example.com/affiliate-links?connect=return',
      refreshUrl: 'https://print.example.com/affiliate-links?connect=refresh',
    });
    expect(url).toBe('https://connect.stripe.com/setup/e/acct_1Layerline000001/abc123');
    expect(only('PostAccountLinks').body).toEqual({
      account: 'acct_1Layerline000001',
      return_url: 'https://print.example.com/affiliate-links?connect=return',
      refresh_url: 'https://print.example.com/affiliate-links?connect=refresh',
      type: 'account_onboarding',
    });
  });

  it.each([
    [
      'onboarding not finished',
      {
        details_submitted: false,
        payouts_enabled: false,
        charges_enabled: false,
        requirements: {
          ...fixtureRequirements(),
          currently_due: ['external_account', 'tos_acceptance.date'],
        },
      },
      {
        detailsSubmitted: false,
        payoutsEnabled: false,
        requirementsDue: ['external_account', 'tos_acceptance.date'],
      },
    ],
    [
      'finished, payouts on',
      {
        details_submitted: true,
        payouts_enabled: true,
        charges_enabled: true,
        requirements: { ...fixtureRequirements(), currently_due: [] },
      },
      { detailsSubmitted: true, payoutsEnabled: true, chargesEnabled: true, requirementsDue: [] },
    ],
    [
      'finished, restricted',
      {
        details_submitted: true,
        payouts_enabled: false,
        charges_enabled: false,
        requirements: { ...fixtureRequirements(), currently_due: ['external_account'] },
      },
      { detailsSubmitted: true, payoutsEnabled: false, requirementsDue: ['external_account'] },
    ],
  ])('reads the account back: %s', async (_name, account, expected) => {
    fake.answer(connectAnswers(account));
    expect(await payments.getConnectedAccount('acct_1Layerline000001')).toMatchObject(expected);
    const request = only('GetAccountsAccount');
    expect(request.path).toBe('/v1/accounts/acct_1Layerline000001');
  });
});

/** The fixture account's requirements object (the answer changes only what a case sets). */
function fixtureRequirements(): Json {
  return structuredClone(loadFixtures().account!.requirements);
}

describe('transfers', () => {
  it('transfers to the connected account once per key, with the payout on its metadata', async () => {
    const { transferId } = await payments.createTransfer({
      accountId: 'acct_1Layerline000001',
      amountCents: 1234,
      currency: 'USD',
      idempotencyKey: 'payout:6d7c1f0e-0000-4000-8000-000000000001',
      metadata: {
        payout_id: '6d7c1f0e-0000-4000-8000-000000000001',
        period: '2026-10',
        affiliate_id: 'usr_7',
      },
    });
    expect(transferId).toBe('tr_1Layerline000001');
    const request = only('PostTransfers');
    expect(request.body).toEqual({
      amount: '1234',
      currency: 'usd',
      destination: 'acct_1Layerline000001',
      metadata: {
        payout_id: '6d7c1f0e-0000-4000-8000-000000000001',
        period: '2026-10',
        affiliate_id: 'usr_7',
      },
    });
    expect(request.headers['idempotency-key']).toBe('payout:6d7c1f0e-0000-4000-8000-000000000001');
  });

  it('a 500 then success is one transfer under one key', async () => {
    let calls = 0;
    fake.answer((request) =>
      ++calls === 1
        ? { status: 500, body: { error: { type: 'api_error', message: 'boom' } } }
        : connectAnswers()(request),
    );
    await payments.createTransfer({
      accountId: 'acct_1Layerline000001',
      amountCents: 500,
      currency: 'usd',
      idempotencyKey: 'payout:p1',
      metadata: {},
    });
    expect(fake.requests.map((request) => request.headers['idempotency-key'])).toEqual([
      'payout:p1',
      'payout:p1',
    ]);
  });
});

describe('4xx answers', () => {
  it('a destination without the transfers capability is PaymentRejectedError with Stripe’s code, not retried', async () => {
    fake.answer(() => ({
      status: 400,
      body: {
        error: {
          type: 'invalid_request_error',
          code: 'insufficient_capabilities_for_transfer',
          message:
            'Your destination account needs to have at least one of the following capabilities enabled: transfers, crypto_transfers, legacy_payments',
        },
      },
    }));
    const error = await payments
      .createTransfer({
        accountId: 'acct_1Layerline000001',
        amountCents: 500,
        currency: 'usd',
        idempotencyKey: 'payout:p2',
        metadata: {},
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentRejectedError);
    expect((error as PaymentRejectedError).code).toBe('insufficient_capabilities_for_transfer');
    expect(fake.requests).toHaveLength(1);
  });

  it('an unknown account is resource_missing', async () => {
    fake.answer(() => ({
      status: 404,
      body: {
        error: {
          type: 'invalid_request_error',
          code: 'resource_missing',
          message: "No such account: 'acct_gone'",
        },
      },
    }));
    const error = await payments.getConnectedAccount('acct_gone').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentRejectedError);
    expect((error as PaymentRejectedError).status).toBe(404);
    expect((error as PaymentRejectedError).code).toBe('resource_missing');
  });

  it('a platform not signed up for Connect (400) and a refused key (401) are told apart', async () => {
    fake.answer(() => ({
      status: 400,
      body: {
        error: {
          type: 'invalid_request_error',
          message: "You can only create new accounts if you've signed up for Connect",
        },
      },
    }));
    await expect(
      payments.createConnectedAccount({
        userId: 'usr_9',
        email: 'c@example.com',
        idempotencyKey: 'affiliate:usr_9:connect-account',
      }),
    ).rejects.toBeInstanceOf(PaymentRejectedError);
    fake.answer(() => ({
      status: 401,
      body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } },
    }));
    await expect(
      payments.createAccountLink({
        accountId: 'acct_1',
        returnUrl: 'https://x.example/r',
        refreshUrl: 'https://x.example/f',
      }),
    ).rejects.toBeInstanceOf(PaymentAuthError);
  });

  it('429 with Stripe-Should-Retry is retried twice, then PaymentUnavailableError', async () => {
    fake.answer(() => ({
      status: 429,
      headers: { 'stripe-should-retry': 'true' },
      body: { error: { type: 'rate_limit_error', message: 'slow down' } },
    }));
    await expect(
      payments.createTransfer({
        accountId: 'acct_1',
        amountCents: 500,
        currency: 'usd',
        idempotencyKey: 'payout:p3',
        metadata: {},
      }),
    ).rejects.toBeInstanceOf(PaymentUnavailableError);
    expect(fake.requests).toHaveLength(3);
  });
});

describe('the fake holds Connect requests to the spec', () => {
  it('rejects an unknown account type, a wrong link type and a transfer without a destination', async () => {
    expectInvalid = true;
    const stripe = new Stripe(SECRET_KEY, {
      apiVersion: STRIPE_API_VERSION,
      host: fake.host,
      port: fake.port,
      protocol: 'http',
      maxNetworkRetries: 0,
    });
    await expect(
      stripe.accounts.create({ type: 'premium' } as unknown as Stripe.AccountCreateParams),
    ).rejects.toThrow(/type/);
    await expect(
      stripe.accountLinks.create({
        account: 'acct_1',
        type: 'onboarding',
      } as unknown as Stripe.AccountLinkCreateParams),
    ).rejects.toThrow(/type/);
    await expect(
      stripe.transfers.create({ amount: 100, currency: 'usd' } as unknown as Stripe.TransferCreateParams),
    ).rejects.toThrow(/destination/);
    expect(fake.requests.map((request) => request.errors.length > 0)).toEqual([true, true, true]);
  });
});
