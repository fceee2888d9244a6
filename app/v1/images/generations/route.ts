import { imageGenerations } from "@/lib/gateway/images/handler";

export const POST = imageGenerations;
