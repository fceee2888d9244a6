import { imageEdits } from "@/lib/gateway/images";

export const POST = imageEdits;
