import { messages } from "@/lib/gateway/text";

export const POST = messages;
