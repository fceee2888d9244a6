import { listModels } from "@/lib/gateway/models";

export const GET = listModels;
