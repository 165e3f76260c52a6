import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import qs from 'qs';

/**
 * A fake Stripe for contract tests (tests only). Prism cannot load Stripe's spec (circular schemas;
 * see shared/guide/contract-testing.md), so this is a node:http server that validates every request
 * against Stripe's own OpenAPI file with openapi-backend — form-encoded bodies parsed with `qs` the
 * way Stripe reads them — and answers Stripe's own sample objects from fixtures3.json, changed only
 * the way a test asks. Every request is recorded with its validation errors, so a test can assert
 * that none failed. A request that fails validation is answered 400 `invalid_request_error`, as
 * Stripe would.
 */

export const STRIPE_SPEC = '/work/shared/contracts/stripe/spec3.yaml';
export const STRIPE_FIXTURES = '/work/shared/contracts/stripe/fixtures3.json';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Stripe's objects as loose JSON, in a test fake
type Json = Record<string, any>;

/** Stripe's sample objects (what stripe-mock answers), by object name. */
export const loadFixtures = (): Record<string, Json> =>
  (JSON.parse(readFileSync(STRIPE_FIXTURES, 'utf8')) as { resources: Record<string, Json> }).resources;

/**
 * Loads and compiles the spec (a few seconds for its 4 MB): once per test file. Validators compile
 * lazily (quick mode), per operation used. Form-encoded values are strings, so types are coerced as Stripe does.
 */
export const loadStripeApi = async (): Promise<OpenAPIBackend> => {
  const api = new OpenAPIBackend({
    definition: STRIPE_SPEC as unknown as Document,
    // Quick mode skips validating the document itself and compiles each operation's validators lazily.
    quick: true,
    ajvOpts: { coerceTypes: true, strict: false, validateFormats: false },
  });
  await api.init();
  return api;
};

export interface FakeRequest {
  readonly method: string;
  readonly path: string;
  /** The spec's operationId, or null when no operation matches. */
  readonly operationId: string | null;
  readonly headers: IncomingHttpHeaders;
  readonly query: Json;
  /** The form body as `qs` parses it (before type coercion). */
  readonly body: Json;
  readonly rawBody: string;
  /** Validation errors against the spec; empty when the request is valid. */
  readonly errors: string[];
}

export type FakeReply =
  | { status: number; body: unknown; headers?: Record<string, string> }
  /** Close the connection without answering (a network failure). */
  | 'drop';

/** Answers a valid request; undefined → the default answer for its operation. */
export type FakeAnswer = (request: FakeRequest) => FakeReply | undefined;

export interface StripeFake {
  readonly host: string;
  readonly port: number;
  readonly requests: FakeRequest[];
  /** Changes how the next requests are answered (undefined → defaults only). */
  answer(fn: FakeAnswer | undefined): void;
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

const errorsText = (errors: unknown): string[] =>
  Array.isArray(errors)
    ? errors.map((e: Json) =>
        `${String(e.instancePath ?? '')} ${String(e.message ?? '')} ${JSON.stringify(e.params ?? {})}`.trim(),
      )
    : [];

let sequence = 0;
const newId = (prefix: string) =>
  `${prefix}_Fake${Date.now().toString(36)}${(sequence++).toString(36).padStart(4, '0')}`;

/** What Stripe answers, built from its fixtures and the request's parameters. */
export const defaultAnswer = (fixtures: Record<string, Json>, request: FakeRequest): FakeReply => {
  const body = request.body;
  const clone = (name: string): Json => structuredClone(fixtures[name]!);
  switch (request.operationId) {
    case 'PostCustomers': {
      const customer = clone('customer');
      return {
        status: 200,
        body: {
          ...customer,
          id: newId('cus'),
          email: body.email ?? null,
          name: body.name ?? null,
          metadata: body.metadata ?? {},
        },
      };
    }
    case 'PostCustomersCustomer': {
      const customer = clone('customer');
      const id = request.path.split('/')[3]!;
      customer.invoice_settings.default_payment_method =
        body.invoice_settings?.default_payment_method ?? null;
      return { status: 200, body: { ...customer, id } };
    }
    case 'PostSetupIntents': {
      const setupIntent = clone('setup_intent');
      const id = newId('seti');
      return {
        status: 200,
        body: {
          ...setupIntent,
          id,
          client_secret: `${id}_secret_fake`,
          customer: body.customer ?? null,
          usage: body.usage ?? 'off_session',
        },
      };
    }
    case 'PostPaymentMethodsPaymentMethodAttach': {
      const paymentMethod = clone('payment_method');
      const id = request.path.split('/')[3]!;
      return { status: 200, body: { ...paymentMethod, id, customer: body.customer } };
    }
    case 'PostPaymentIntents':
      return { status: 200, body: paymentIntentFrom(fixtures, body, 'succeeded') };
    case 'GetPaymentIntentsIntent': {
      const id = request.path.split('/')[3]!;
      const paymentIntent = {
        ...clone('payment_intent'),
        id,
        status: 'succeeded',
        latest_charge: chargeIdOf(id),
      };
      return { status: 200, body: retrievedPaymentIntent(fixtures, request, paymentIntent) };
    }
    case 'GetPaymentIntentsSearch':
      return {
        status: 200,
        body: {
          object: 'search_result',
          data: [],
          has_more: false,
          next_page: null,
          url: '/v1/payment_intents/search',
        },
      };
    case 'PostRefunds': {
      const refund = clone('refund');
      return {
        status: 200,
        body: {
          ...refund,
          id: newId('re'),
          payment_intent: body.payment_intent ?? null,
          amount: Number(body.amount ?? 1099),
        },
      };
    }
    default:
      return {
        status: 404,
        body: {
          error: {
            type: 'invalid_request_error',
            message: `The fake has no answer for ${request.method} ${request.path}`,
          },
        },
      };
  }
};

/** A PaymentIntent as Stripe answers one created with these parameters. */
export const paymentIntentFrom = (fixtures: Record<string, Json>, body: Json, status: string): Json => {
  const paymentIntent = structuredClone(fixtures.payment_intent!);
  const id = newId('pi');
  return {
    ...paymentIntent,
    id,
    client_secret: `${id}_secret_fake`,
    canceled_at: null,
    amount: Number(body.amount),
    amount_received: status === 'succeeded' ? Number(body.amount) : 0,
    currency: body.currency,
    customer: body.customer ?? null,
    payment_method: body.payment_method ?? null,
    description: body.description ?? null,
    metadata: body.metadata ?? {},
    // A succeeded PaymentIntent names the charge that paid it.
    latest_charge: status === 'succeeded' ? chargeIdOf(id) : null,
    status,
  };
};

const chargeIdOf = (paymentIntentId: string) => `ch_${paymentIntentId.replace(/^pi_/, '')}`;

/** A succeeded PaymentIntent's charge with `amountRefunded` refunded so far (in the dashboard or by the API), as Stripe answers it expanded. */
export const latestChargeOf = (
  fixtures: Record<string, Json>,
  paymentIntent: Json,
  amountRefunded: number,
): Json => ({
  ...structuredClone(fixtures.charge!),
  id: paymentIntent.latest_charge,
  amount: paymentIntent.amount,
  amount_captured: paymentIntent.amount,
  amount_refunded: amountRefunded,
  refunded: amountRefunded >= paymentIntent.amount,
  captured: true,
  paid: true,
  status: 'succeeded',
  currency: paymentIntent.currency,
  customer: paymentIntent.customer,
  payment_intent: paymentIntent.id,
  payment_method: paymentIntent.payment_method,
});

/** A PaymentIntent as a retrieve answers it: its latest charge expanded when the request asks (`expand[]=latest_charge`). */
export const retrievedPaymentIntent = (
  fixtures: Record<string, Json>,
  request: FakeRequest,
  paymentIntent: Json,
  amountRefunded = 0,
): Json => {
  const expand: unknown = request.query.expand;
  const expanded =
    Array.isArray(expand) &&
    expand.includes('latest_charge') &&
    typeof paymentIntent.latest_charge === 'string';
  return expanded
    ? { ...paymentIntent, latest_charge: latestChargeOf(fixtures, paymentIntent, amountRefunded) }
    : paymentIntent;
};

export const startStripeFake = async (
  api: OpenAPIBackend,
  fixtures: Record<string, Json>,
): Promise<StripeFake> => {
  const requests: FakeRequest[] = [];
  let answer: FakeAnswer | undefined;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const rawBody = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://stripe.fake');
      const query = qs.parse(url.search.slice(1)) as Json;
      const body = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
        ? (qs.parse(rawBody, { depth: 10, arrayLimit: 100 }) as Json)
        : {};
      const method = req.method ?? 'GET';
      const openApiRequest = {
        method,
        path: url.pathname,
        query,
        headers: req.headers as Record<string, string | string[]>,
        // Stripe reads GET parameters from the query; a body is only for POST.
        ...(method === 'POST' ? { body: structuredClone(body) } : {}),
      };
      const operation = api.matchOperation(openApiRequest);
      const errors = operation
        ? errorsText(api.validateRequest(openApiRequest, operation).errors)
        : [`no operation in the spec for ${method} ${url.pathname}`];
      const request: FakeRequest = {
        method,
        path: url.pathname,
        operationId: operation?.operationId ?? null,
        headers: req.headers,
        query,
        body,
        rawBody,
        errors,
      };
      requests.push(request);
      const reply: FakeReply =
        errors.length > 0
          ? {
              status: 400,
              body: {
                error: {
                  type: 'invalid_request_error',
                  message: `Invalid request (fake Stripe): ${errors.join('; ')}`,
                },
              },
              headers: { 'stripe-should-retry': 'false' },
            }
          : (answer?.(request) ?? defaultAnswer(fixtures, request));
      if (reply === 'drop') {
        req.socket.destroy();
        return;
      }
      res.writeHead(reply.status, {
        'content-type': 'application/json',
        'request-id': newId('req'),
        ...(typeof req.headers['idempotency-key'] === 'string'
          ? { 'idempotency-key': req.headers['idempotency-key'] }
          : {}),
        ...reply.headers,
      });
      res.end(JSON.stringify(reply.body));
    })().catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'api_error', message: String(error) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    host: '127.0.0.1',
    port: (server.address() as AddressInfo).port,
    requests,
    answer(fn) {
      answer = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
