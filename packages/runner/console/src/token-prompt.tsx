import { useEffect, useRef, useState } from "preact/hooks";
import { storedToken, storeToken } from "./admin-client.js";

/**
 * Asks for the runner's admin token (`http.token`); kept in this tab's sessionStorage only. An
 * empty token is "none" (a runner without a token needs none).
 */
export function TokenPrompt(props: { refused: boolean; onDone: () => void; onCancel: () => void }) {
  const [token, setToken] = useState(storedToken() ?? "");
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  return (
    <div class="overlay" role="dialog" aria-modal="true" aria-labelledby="token-title" onKeyDown={(e) => e.key === "Escape" && props.onCancel()}>
      <form
        class="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          storeToken(token.trim());
          props.onDone();
        }}
      >
        <h2 id="token-title">Admin token</h2>
        <p>
          {props.refused ? "The runner refused the request: " : ""}
          the console calls <code>/admin</code> with the runner's admin token (<code>http.token</code>). It is kept in this tab only.
        </p>
        <label for="token-input">Token</label>
        <input id="token-input" data-testid="token-input" type="password" autocomplete="off" ref={input} value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        <div class="actions">
          <button type="submit" data-testid="token-submit" class="primary">
            Use token
          </button>
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </div>
  );
}
