// A certified OpenID Connect provider (oidc-provider) on loopback for the sign-in tests.
//
// Usage: node provider.mjs CONFIG_JSON
// CONFIG_JSON: {"client_id", "client_secret", "redirect_uri"} (any port of 127.0.0.1 is accepted). It listens on a free port of
// 127.0.0.1 and prints "Issuer: http://127.0.0.1:PORT" once it serves its discovery document.
// Its people (findAccount) are ACCOUNTS below. Signing in is a plain form, no consent screen:
// GET /interaction/UID shows it, POST /interaction/UID/login with login=ACCOUNT finishes it.
import http from "node:http";
import Provider from "oidc-provider";

const ACCOUNTS = {
  alice: { email: "alice@team.example", email_verified: true, preferred_username: "alice", groups: ["writers"] },
  bob: { email: "bob@elsewhere.example", email_verified: true, preferred_username: "bob", groups: ["writers"] },
  dave: { email: "dave@team.example", email_verified: true, preferred_username: "dave", groups: ["writers"] },
  carol: { email: "carol@team.example", email_verified: false, preferred_username: "carol", groups: [] },
};

const config = JSON.parse(process.argv[2]);
const server = http.createServer();
server.listen(0, "127.0.0.1", () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: config.client_id,
        client_secret: config.client_secret,
        // Native: a loopback redirect URI matches on any port (RFC 8252), so the provider can start
        // before the Romergo server has bound its own.
        application_type: "native",
        redirect_uris: [config.redirect_uri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    pkce: { required: () => true },
    scopes: ["openid", "email", "profile"],
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified"],
      profile: ["preferred_username", "groups"],
    },
    // The scopes' claims in the ID token itself: Romergo reads who signs in from it alone.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(ctx, id) {
      const person = ACCOUNTS[id];
      if (!person) return undefined;
      return { accountId: id, async claims() { return { sub: id, ...person }; } };
    },
  });
  const handle = provider.callback();
  server.on("request", async (req, res) => {
    const match = /^\/interaction\/([^/]+)(\/login)?$/.exec(new URL(req.url, issuer).pathname);
    if (!match) return handle(req, res);
    try {
      if (!match[2]) return showForm(res, match[1]);
      const details = await provider.interactionDetails(req, res);
      const accountId = new URLSearchParams(await body(req)).get("login");
      if (!ACCOUNTS[accountId]) return showForm(res, match[1]);
      const grant = new provider.Grant({ accountId, clientId: details.params.client_id });
      grant.addOIDCScope(details.params.scope);
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId } }, {
        mergeWithLastSubmission: false,
      });
    } catch (error) {
      res.writeHead(400, { "content-type": "text/plain" });
      res.end(String(error));
    }
  });
  console.log(`Issuer: ${issuer}`);
});

function showForm(res, uid) {
  res.writeHead(200, { "content-type": "text/html" });
  res.end(`<form method="post" action="/interaction/${uid}/login"><input name="login"><button>Sign in</button></form>`);
}

function body(req) {
  return new Promise((resolve, reject) => {
    let text = "";
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}
