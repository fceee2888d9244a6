import { responses } from "@/lib/gateway/responses";

export const POST = responses;
