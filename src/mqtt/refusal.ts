/**
 * Why a broker would not have us, in words a person can act on: a login it refused, a
 * certificate one side does not trust, a client certificate it asks for. OpenSSL's own message
 * is a line of hex, file names and line numbers, and Node's verify errors do not say which setting
 * fixes them. Anything else (the broker down, a timeout, a certificate for another name, whose
 * message says so) is not a refusal: undefined.
 */

/** What mqtt.js and Node's TLS put on an error: a CONNACK's reason code, Node's code, OpenSSL's reason. */
type BrokerError = Error & { readonly code?: unknown; readonly reason?: unknown };

/** CONNACK codes for a login the broker turned down: 3.1.1's 4 and 5, MQTT 5's 134 and 135. */
const LOGIN_REFUSED = new Set([4, 5, 134, 135]);

/** Node's verify errors for a certificate chain that ends in no CA it was given. */
const UNKNOWN_CA = new Set(['SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_UNTRUSTED']);

/** The broker's TLS alerts about our certificate (TLS 1.3 says it needs one; any version says it is bad). */
const CLIENT_CERT_REFUSED = new Set(['ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE', 'ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN', 'ERR_SSL_SSLV3_ALERT_CERTIFICATE_EXPIRED', 'ERR_SSL_TLSV1_ALERT_DECRYPT_ERROR']);

/** One line saying what the broker refused and which `mqtt.` setting to look at, or undefined when it did not refuse us. */
export function brokerRefusal(err: BrokerError): string | undefined {
  const { code, message } = err;
  const detail = typeof err.reason === 'string' ? err.reason : message;
  if (typeof code === 'number' && LOGIN_REFUSED.has(code) && message.startsWith('Connection refused')) {
    return `the broker refused the login (${message.replace(/^Connection refused: /, '')}): check mqtt.username and the password (mqtt.password_file)`;
  }
  if (typeof code !== 'string') return undefined;
  if (UNKNOWN_CA.has(code)) return `the broker's certificate is not signed by a CA quackd trusts (${message}): set mqtt.tls.ca to the CA that signed it`;
  if (code === 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED') return 'the broker asks for a client certificate: set mqtt.tls.cert and mqtt.tls.key';
  if (CLIENT_CERT_REFUSED.has(code)) return `the broker refused our client certificate (${detail}): check mqtt.tls.cert and mqtt.tls.key`;
  // Another TLS alert: OpenSSL's reason alone, without its hex and source lines.
  if (code.startsWith('ERR_SSL_')) return `TLS: ${detail}`;
  return undefined;
}
