import { retrieveModel } from "@/lib/gateway/models";

export const GET = retrieveModel;
