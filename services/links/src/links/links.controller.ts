import { BadRequestException, Controller, Inject, NotFoundException } from '@nestjs/common';
import {
  EDIT_LINK_MESSAGES,
  internalApi,
  LINKS_QUERY_MESSAGES,
  TARGET_URL_MESSAGES,
  type InternalLink,
  type LinkCodes,
  type LinkList,
  type LinksFound,
  type ResolvedLink,
  type UpdateLinkRequest,
} from '@shortener/contracts';
import type { CallerIdentity } from '@shortener/chassis';
import { Caller, Input, Route, type RouteInput } from '@shortener/chassis-nest';
import { ownerOf } from '../owner-of';
import { decodeLinkCursor } from './link-cursor';
import { LinkEditsService } from './link-edits.service';
import { LinksService } from './links.service';
import { OwnedLinksService } from './owned-links.service';

const NOT_FOUND = 'Url not found';

/** The internal API the gateway (and the redirect service, for resolve) calls. */
@Controller()
export class LinksController {
  constructor(
    @Inject(LinksService) private readonly links: LinksService,
    @Inject(OwnedLinksService) private readonly owned: OwnedLinksService,
    @Inject(LinkEditsService) private readonly edits: LinkEditsService,
  ) {}

  /** A body that is not an object carries no URL, and is answered like a missing one. */
  @Route(internalApi.createLink, () => new BadRequestException(TARGET_URL_MESSAGES.required))
  create(
    @Caller() caller: CallerIdentity,
    @Input() { body }: RouteInput<typeof internalApi.createLink>,
  ): Promise<InternalLink> {
    return this.links.create(caller, body);
  }

  @Route(internalApi.listLinks)
  async list(
    @Caller() caller: CallerIdentity,
    @Input() { query }: RouteInput<typeof internalApi.listLinks>,
  ): Promise<LinkList> {
    const owner = ownerOf(caller);
    // The most visited first is the gateway's to list (the visits are analytics'), by codes.
    if (query.sort === 'visits') throw new BadRequestException(LINKS_QUERY_MESSAGES.sort);
    const order = query.sort === 'expiring' ? 'expiring' : 'newest';
    let after = null;
    if (query.cursor !== undefined) {
      after = decodeLinkCursor(query.cursor);
      // A cursor continues the listing that gave it: in its own order only.
      if (after?.order !== order) throw new BadRequestException(LINKS_QUERY_MESSAGES.cursor);
    }
    return this.owned.listOwned(owner, order, after, query.q);
  }

  @Route(internalApi.listLinkCodes)
  async codes(
    @Caller() caller: CallerIdentity,
    @Input() { query }: RouteInput<typeof internalApi.listLinkCodes>,
  ): Promise<LinkCodes> {
    return { codes: await this.owned.codesOwned(ownerOf(caller), query.q) };
  }

  @Route(internalApi.findLinks)
  async find(
    @Caller() caller: CallerIdentity,
    @Input() { body }: RouteInput<typeof internalApi.findLinks>,
  ): Promise<LinksFound> {
    return { links: await this.owned.findOwned(ownerOf(caller), body.codes) };
  }

  @Route(internalApi.getLink)
  async get(
    @Caller() caller: CallerIdentity,
    @Input() { params }: RouteInput<typeof internalApi.getLink>,
  ): Promise<InternalLink> {
    const link = await this.owned.getOwned(ownerOf(caller), params.code);
    if (!link) throw new NotFoundException(NOT_FOUND);
    return link;
  }

  @Route(internalApi.deleteLink)
  async remove(
    @Caller() caller: CallerIdentity,
    @Input() { params }: RouteInput<typeof internalApi.deleteLink>,
  ): Promise<void> {
    if (!(await this.links.deleteOwned(ownerOf(caller), params.code))) {
      throw new NotFoundException(NOT_FOUND);
    }
  }

  /** A body that is not an object changes nothing, and is answered like an empty one. */
  @Route(internalApi.updateLink)
  async update(
    @Caller() caller: CallerIdentity,
    @Input() { params, body }: RouteInput<typeof internalApi.updateLink>,
  ): Promise<InternalLink> {
    const change = Object.fromEntries(
      Object.entries(body).filter(([, value]) => value !== undefined),
    ) as UpdateLinkRequest;
    if (Object.keys(change).length === 0) {
      throw new BadRequestException(EDIT_LINK_MESSAGES.nothingToChange);
    }
    const link = await this.edits.updateOwned(ownerOf(caller), params.code, change);
    if (!link) throw new NotFoundException(NOT_FOUND);
    return link;
  }

  @Route(internalApi.restoreLink)
  async restore(
    @Caller() caller: CallerIdentity,
    @Input() { params }: RouteInput<typeof internalApi.restoreLink>,
  ): Promise<InternalLink> {
    const link = await this.edits.restoreOwned(ownerOf(caller), params.code);
    if (!link) throw new NotFoundException(NOT_FOUND);
    return link;
  }

  @Route(internalApi.resolveLink)
  async resolve(
    @Input() { params, query }: RouteInput<typeof internalApi.resolveLink>,
  ): Promise<ResolvedLink> {
    const link = await this.links.resolve(params.code, query.host);
    if (!link) throw new NotFoundException(NOT_FOUND);
    return link;
  }
}
