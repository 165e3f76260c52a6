/**
 * Secrets written in this repository's tests, contract fakes and benches (a developer may copy one
 * into a real configuration). Production refuses them like the development and sandbox secrets
 * (config.ts, PUBLISHED_SECRETS). `published-secrets.test.ts` reads the repository and fails when a
 * hard-coded secret is missing here.
 */
export const FIXTURE_SECRETS: readonly string[] = [
  'LAYERLINE_TEST_SECRET',
  'whsec_test',
  'whsec_other',
  'whsec_old',
  'shpss_test_secret',
  'whsec_connect',
  'sk_test_layerline_connect',
  'whsec_layerline_contract',
  'whsec_someone_else',
  'sk_test_layerline_contract',
  'e59af819cc',
  'layerline-app-secret',
  'test-app-secret-0123456789abcdef0123456789',
  'a-test-secret-of-at-least-32-characters!',
  'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  'whsec_test_layerline_payments',
  'whsec_forged',
  'octo-key-SECRET-4b1d9e',
  'ss-secret-9876543210wxyz',
  'test-secret',
  'bench-secret',
];
