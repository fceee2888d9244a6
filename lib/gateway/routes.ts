// The /v1 (and /v1beta) endpoints and the playground's session-authenticated copies of them. Each endpoint family is a
// folder under lib/gateway/ that holds its handlers, its body kind (lib/gateway/text-request.ts), its schemas and its
// definitions (`routes`, and `playgroundRoutes` where the portal's playground calls it); this list only names the
// folders (docs/routes.md, "Adding an endpoint"). The route table, /openapi.json and the answer check are read from it.
import type { RouteDefinition } from "@/lib/platform/http/route-definition";
import * as text from "./text/routes";
import * as images from "./images/routes";
import * as responses from "./responses/routes";
import * as embeddings from "./embeddings/routes";
import * as audio from "./audio/routes";
import * as models from "./models/routes";
import * as gemini from "./gemini/routes";

type EndpointFolder = { routes: readonly RouteDefinition[]; playgroundRoutes?: readonly RouteDefinition[] };

const folders: EndpointFolder[] = [text, images, responses, embeddings, audio, models, gemini];

export const gatewayRoutes = folders.flatMap((folder) => folder.routes);

/** The portal's playground: the /v1 endpoint itself, authenticated by the session cookie and billed through the
 *  user's playground key (lib/gateway/playground.ts). `?group=` picks the group for a first key. */
export const playgroundRoutes = folders.flatMap((folder) => folder.playgroundRoutes ?? []);
