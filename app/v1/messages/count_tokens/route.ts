import { countTokens } from "@/lib/gateway/models";

export const POST = countTokens;
