import { responses } from "@/lib/gateway/responses/handler";

export const POST = responses;
