import { chatCompletions } from "@/lib/gateway/text";

export const POST = chatCompletions;
