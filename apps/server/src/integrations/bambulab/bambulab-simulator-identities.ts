/**
 * The simulated Bambu Lab printer's TLS identities (bambulab-simulator.ts). Real printers present a
 * certificate issued by Bambu Lab's CA with CN = the serial (shared/contracts/printers/bambulab.md
 * §2); these are self-signed stand-ins with the same CN, made once with
 * `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -days 36500
 * -subj "/CN=01S00C000000001/O=…"`. Two of them, so a test can swap the printer's certificate and
 * see the pin refuse it. Keys for a simulator only: they protect nothing.
 */
export interface SimulatorIdentity {
  readonly cert: string;
  readonly key: string;
}

export const SIMULATED_SERIAL = '01S00C000000001';

export const SIMULATOR_IDENTITIES: readonly [SimulatorIdentity, SimulatorIdentity] = [
  {
    cert: `-----BEGIN CERTIFICATE-----
MIIB7zCCAZWgAwIBAgIUbA7s+w1oz0WWBNvAWJnTrSgEZDowCgYIKoZIzj0EAwIw
TDEYMBYGA1UEAwwPMDFTMDBDMDAwMDAwMDAxMTAwLgYDVQQKDCdMYXllcmxpbmUg
c2ltdWxhdGVkIEJhbWJ1IExhYiBwcmludGVyIGEwIBcNMjYxMjA3MTEzMTQ4WhgP
MjEyNjExMTMxMTMxNDhaMEwxGDAWBgNVBAMMDzAxUzAwQzAwMDAwMDAwMTEwMC4G
A1UECgwnTGF5ZXJsaW5lIHNpbXVsYXRlZCBCYW1idSBMYWIgcHJpbnRlciBhMFkw
EwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEuyUuw68R/qKlGbtuODd7KS1CbmKXoxfb
jckZueiUXsD0gkc/E2qK56vRH9/iQfvEYX6d3C6Lqq6BXlXjpR7g+6NTMFEwHQYD
VR0OBBYEFF0n++HSBYN5W+Wr2NV93L0w/w5dMB8GA1UdIwQYMBaAFF0n++HSBYN5
W+Wr2NV93L0w/w5dMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIg
A1h2FAOpMbDVqYJo8h9gUfPllvZafkfZNZdhyRhTy+UCIQCAUvkOFkx+//qpo51s
Icc9jxUJWm+6VxEL1c4kWUyCQw==
-----END CERTIFICATE-----
`,
    key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgVLIo7imTUkOA5YdA
57piSnbZcsw62/tF1Dg1ECeTq8mhRANCAAS7JS7DrxH+oqUZu244N3spLUJuYpej
F9uNyRm56JRewPSCRz8Taornq9Ef3+JB+8Rhfp3cLouqroFeVeOlHuD7
-----END PRIVATE KEY-----
`,
  },
  {
    cert: `-----BEGIN CERTIFICATE-----
MIIB8DCCAZWgAwIBAgIUA5TF0rZj9smN7kOLsTMspWlCUaQwCgYIKoZIzj0EAwIw
TDEYMBYGA1UEAwwPMDFTMDBDMDAwMDAwMDAxMTAwLgYDVQQKDCdMYXllcmxpbmUg
c2ltdWxhdGVkIEJhbWJ1IExhYiBwcmludGVyIGIwIBcNMjYxMjA3MTEzMTQ5WhgP
MjEyNjExMTMxMTMxNDlaMEwxGDAWBgNVBAMMDzAxUzAwQzAwMDAwMDAwMTEwMC4G
A1UECgwnTGF5ZXJsaW5lIHNpbXVsYXRlZCBCYW1idSBMYWIgcHJpbnRlciBiMFkw
EwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAElVZtGp+sUosNzr3pI0/F6Eek250IOjUD
0tDIU/017EBq8Gzs0kQ8KVZf24I97ryuQ93PWORNZPwyEUdTbXv7nqNTMFEwHQYD
VR0OBBYEFFRLvDiLJik8Z0ldYBesq9asUz3YMB8GA1UdIwQYMBaAFFRLvDiLJik8
Z0ldYBesq9asUz3YMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSQAwRgIh
AMjBFdrZL19Zj4winma87LBEuAIvQPqK0MYWOTRDrj3nAiEAmW4jKp/gilIMzN3K
VnVrTHn+WHG+ZfUoT8bC3gUMN4Q=
-----END CERTIFICATE-----
`,
    key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg7TGRRXLXY9BXfdST
tGdWu6yzcfv2ivDh4PqNlPifxnehRANCAASVVm0an6xSiw3OvekjT8XoR6TbnQg6
NQPS0MhT/TXsQGrwbOzSRDwpVl/bgj3uvK5D3c9Y5E1k/DIRR1Nte/ue
-----END PRIVATE KEY-----
`,
  },
];
