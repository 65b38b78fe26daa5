import { joinHostPort } from '../machinery/host-port.js';
import type { ServiceAddress } from './extension-server.js';

/**
 * What Go's net, crypto/tls and crypto/x509 print for the failures a call to
 * an extension API server meets, so that Available conditions and the
 * proxy's 503s read as kube-aggregator's do. Texts from upstream:
 * net.OpError ("dial tcp <addr>: connect: <errno text>", net/net.go),
 * crypto/tls CertificateVerificationError ("tls: failed to verify
 * certificate: %s", common.go) around x509's UnknownAuthorityError and
 * HostnameError (verify.go), a received alert as net.OpError{Op: "remote
 * error"} (conn.go, alert.go), and io.EOF. Anything else keeps Node's text.
 */

/** Node's codes for a chain that does not lead to a trusted root (x509.UnknownAuthorityError). */
const UNKNOWN_AUTHORITY = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT']);

/** syscall.Errno texts on Linux for the connect failures Node reports by code. */
const CONNECT_ERRNO: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'network is unreachable',
};

/** TLS alerts the extension server may send (an OpenSSL reason code → Go's alert text). */
const REMOTE_ALERT: Record<string, string> = {
  ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE: 'bad certificate',
  ERR_SSL_TLSV1_ALERT_UNKNOWN_CA: 'unknown certificate authority',
  ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE: 'handshake failure',
};

export type TransportError = NodeJS.ErrnoException & { cert?: { subjectaltname?: string } };

/** x509.HostnameError's text for a certificate Node found not to name `host`. */
function hostnameError(err: TransportError, host: string): string {
  const names = (err.cert?.subjectaltname ?? '').split(', ').filter((n) => n !== '');
  const isIp = /^[\d.]+$/.test(host) || host.includes(':');
  if (isIp) {
    const ips = names.filter((n) => n.startsWith('IP Address:')).map((n) => n.slice('IP Address:'.length));
    if (ips.length === 0) return `x509: cannot validate certificate for ${host} because it doesn't contain any IP SANs`;
    return `x509: certificate is valid for ${ips.join(', ')}, not ${host}`;
  }
  const dns = names.filter((n) => n.startsWith('DNS:')).map((n) => n.slice('DNS:'.length));
  if (dns.length === 0) return `x509: certificate is not valid for any names, but wanted to match ${host}`;
  return `x509: certificate is valid for ${dns.join(', ')}, not ${host}`;
}

/**
 * Go's text for a failed request to `address` (verified as `serverName`), as
 * http.Transport returns it: what the proxy answers and what follows
 * `Get "<url>": ` in an Available condition.
 */
export function goTransportErrorText(err: TransportError, address: ServiceAddress, serverName?: string): string {
  const code = err.code ?? '';
  const errno = CONNECT_ERRNO[code];
  if (errno) return `dial tcp ${joinHostPort(address.host, address.port)}: connect: ${errno}`;
  // Go's dialer gives up at its 30 s deadline, long before the kernel's connect timeout Node waits for.
  if (code === 'ETIMEDOUT') return `dial tcp ${joinHostPort(address.host, address.port)}: i/o timeout`;
  if (UNKNOWN_AUTHORITY.has(code)) return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' && serverName) return `tls: failed to verify certificate: ${hostnameError(err, serverName)}`;
  const alert = REMOTE_ALERT[code];
  if (alert) return `remote error: tls: ${alert}`;
  // The server closed the connection before any answer (during the handshake or after the request).
  if (code === 'ECONNRESET' && (err.message === 'socket hang up' || err.message.startsWith('Client network socket disconnected before secure TLS connection was established'))) return 'EOF';
  return err.message;
}
