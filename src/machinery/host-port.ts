/** Go's net.JoinHostPort: `host:port`, an IPv6 host in brackets. */
export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
