import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Request, RequestHandler } from 'express';
import {
  clientIp,
  clientIpFromEdge,
  clientKey as addressKey,
  type TrustedProxies,
} from '@shortener/chassis';

/** Connections accepted on the gateway's UNIX_SOCKET: the edge's own way in. */
const edgeConnections = new WeakSet<Socket>();

/**
 * Takes a connection accepted on UNIX_SOCKET for the edge's: its X-Forwarded-For is believed
 * as a trusted proxy's. The socket is this user's alone, so no one else can come this way.
 */
export function acceptedFromEdge(connection: Socket): void {
  edgeConnections.add(connection);
}

/**
 * The client's address: clientIp's (the socket's peer, or what a trusted proxy says), the
 * redirect service's reading too; a connection from the edge's socket, which has no peer
 * address, counts as such a proxy.
 */
export function resolveClientAddress(req: IncomingMessage, trusted: TrustedProxies): string {
  return edgeConnections.has(req.socket) ? clientIpFromEdge(req, trusted) : clientIp(req, trusted);
}

/**
 * Sets every request's `req.ip` to resolveClientAddress's answer: Express's own getter knows
 * nothing of the edge's socket. First in the chain, before anything reads the address.
 */
export function clientAddresses(trusted: TrustedProxies): RequestHandler {
  return (req, _res, next) => {
    Object.defineProperty(req, 'ip', { value: resolveClientAddress(req, trusted) });
    next();
  };
}

/** The client's address, as clientAddresses set it. */
export function clientAddress(req: Request): string {
  return req.ip ?? 'unknown';
}

/**
 * Who a per-address rate limit counts against: IPv6 by its /64, IPv4 by its address, all of
 * loopback as one.
 */
export function clientKey(req: Request): string {
  return addressKey(clientAddress(req));
}
