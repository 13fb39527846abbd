/** Says plainly that answers come from the fake provider (keyless try), not a real model. */
export function FakeProviderBanner() {
  return (
    <p class="fake-banner" role="note">
      <strong>Fake provider — keyless try.</strong> Answers come from chatfold's built-in fake provider, a
      local test server that echoes your message. No real model is called.
    </p>
  );
}
