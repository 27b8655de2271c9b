/**
 * The caller of an HTTP request (`currentCaller`) is known inside the requests that can change a
 * message or a task, and the reads and the ingress run outside it: on Node 20 the first
 * AsyncLocalStorage `run` turns on async hooks for the whole process, so the busiest route must
 * not start them.
 */
import fastify from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import type { HttpApp } from "../src/http/http-app.js";
import { INGRESS_PATH } from "../src/http/ingress-route.js";
import { bindRequestCaller, currentCaller } from "../src/http/request-caller.js";

const app = fastify() as unknown as HttpApp;
bindRequestCaller(app, [INGRESS_PATH]);
const answer = async () => ({ route: currentCaller()?.route ?? null });
app.get("/read", answer);
app.post("/change", answer);
app.post(INGRESS_PATH, answer);
afterAll(() => app.close());

describe("bindRequestCaller", () => {
  it("names the caller inside a request that can change state", async () => {
    const res = await app.inject({ method: "POST", url: "/change" });
    expect(res.json()).toEqual({ route: "POST /change" });
  });

  it("leaves reads and the ingress outside any caller", async () => {
    expect((await app.inject({ method: "GET", url: "/read" })).json()).toEqual({ route: null });
    expect((await app.inject({ method: "HEAD", url: "/read" })).statusCode).toBe(200);
    expect((await app.inject({ method: "POST", url: INGRESS_PATH })).json()).toEqual({ route: null });
  });
});
