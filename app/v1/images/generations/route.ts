import { imageGenerations } from "@/lib/gateway/images";

export const POST = imageGenerations;
