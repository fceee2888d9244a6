// The public landing page: what the service is, how to call it, where to sign in.
export default function Landing() {
  return (
    <main className="landing">
      <h1>Model Gateway</h1>
      <p className="lead">
        One endpoint in front of image and text model back-ends. Call it with the official OpenAI and Anthropic
        clients and an <code>sk-</code> key; manage keys, usage and top-ups in the portal.
      </p>
      <p>
        <a className="button" href="/sign-in">Sign in</a>
        <a href="/sign-up">Create an account</a>
      </p>
      <h2>Endpoints</h2>
      <ul>
        <li><code>POST /v1/images/generations</code> and <code>/v1/images/edits</code>: image generation and editing</li>
        <li><code>POST /v1/responses</code>: a streaming text model that calls an image generation tool</li>
        <li><code>POST /v1/messages</code>: Anthropic-compatible Messages</li>
        <li><code>POST /v1/chat/completions</code>: OpenAI-compatible Chat Completions</li>
      </ul>
    </main>
  );
}
