import { imageEdits } from "@/lib/gateway/images/handler";

export const POST = imageEdits;
