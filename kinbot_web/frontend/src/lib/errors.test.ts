import { describe, expect, it } from "vitest";

import i18n from "@/i18n";

import { ApiError } from "./api";
import { connectionDetail, connectionText, errorText } from "./errors";

const fr = i18n.getFixedT("fr");
const en = i18n.getFixedT("en");

describe("errorText words an API error's code in the interface's language", () => {
  it("translates a known code and never shows the server's English message", () => {
    const error = new ApiError(409, "email_taken", "An account with this email already exists.");
    expect(errorText(fr, error)).toBe("Un compte utilise déjà cet e-mail.");
    expect(errorText(en, error)).toBe("An account already uses this email.");
  });

  it("says how long a password must be", () => {
    const short = new ApiError(400, "password_rejected", "The password needs at least 10 characters.", { min_length: 10 });
    expect(errorText(fr, short)).toBe("Ce mot de passe est trop court : utilisez au moins 10 caractères.");
    expect(errorText(en, short)).toBe("This password is too short: use at least 10 characters.");
  });

  it("names the invalid fields with their rule and limit", () => {
    const error = new ApiError(400, "invalid_request", "The request is not valid.", {
      fields: [
        { field: "name", type: "string_too_long", message: "String should have at most 80 characters", max_length: 80 },
        { field: "config.api_key", type: "missing", message: "Field required" },
        { field: "tools.3", type: "string_too_short", message: "String should have at least 1 character", min_length: 1 },
        { field: "mystery_field", type: "some_new_rule", message: "whatever" },
      ],
    });
    expect(errorText(fr, error)).toBe(
      "Vérifiez le nom (80 caractères au plus), la clé d'API (obligatoire), les outils (obligatoire), un champ (non valide).",
    );
    expect(errorText(en, error)).toBe(
      "Check the name (at most 80 characters), the API key (required), the tools (required), a field (not valid).",
    );
  });

  it("formats limits as numbers of the language", () => {
    const error = new ApiError(400, "invalid_request", "", { fields: [{ field: "content", type: "string_too_long", max_length: 100000 }] });
    expect(errorText(fr, error)).toBe("Vérifiez le message (100\u202f000 caractères au plus).");
  });

  it("says how long to wait and how large a file may be", () => {
    expect(errorText(fr, new ApiError(429, "rate_limited", "Too many attempts.", { retry_after: 30 }))).toBe("Trop de tentatives. Réessayez dans 30 secondes.");
    expect(errorText(en, new ApiError(429, "rate_limited", "Too many attempts.", { retry_after: 1 }))).toBe("Too many attempts. Try again in 1 second.");
    expect(errorText(fr, new ApiError(413, "upload_too_large", "", { limit_bytes: 20 * 1024 * 1024 }))).toBe(
      "Ce fichier est trop volumineux. La limite est de 20\u202fMo.",
    );
  });

  it("shows a third-party plugin's unknown code with its message as details", () => {
    const error = new ApiError(400, "weather_station_offline", "The station did not answer.");
    expect(errorText(fr, error)).toBe("Une erreur est survenue. Détails : The station did not answer.");
    expect(errorText(en, new ApiError(400, "weather_station_offline", ""))).toBe("Something went wrong.");
  });

  it("names the value a specific cause is about", () => {
    expect(errorText(fr, new ApiError(400, "provider_name_taken", "", { name: "Claude" }))).toBe("Un fournisseur s'appelle déjà « Claude ».");
    expect(errorText(en, new ApiError(400, "model_not_listed", "", { model: "gpt-17" }))).toBe(
      "No configured provider offers the model “gpt-17”: pick one of their models.",
    );
    expect(errorText(fr, new ApiError(409, "task_too_deep", "", { limit: 3, depth: 4 }))).toBe("Les sous-Kins ne peuvent pas aller plus loin que le niveau 3.");
  });

  it("words a provider's field and a capability in the interface's words, not their ids", () => {
    const missing = new ApiError(400, "provider_field_required", "", { field: "api_key", label: "API key" });
    expect(errorText(fr, missing)).toBe("Remplissez « Clé d'API » : ce champ est obligatoire.");
    const plugins = new ApiError(400, "provider_field_required", "", { field: "region", label: "Region" });
    expect(errorText(en, plugins)).toBe("Fill in “Region”: it is required.");
    const capability = new ApiError(400, "provider_capability_missing", "", { capability: "embedding" });
    expect(errorText(fr, capability)).toBe("Aucun fournisseur configuré ne propose encore ceci : recherche dans la mémoire.");
  });

  it("says why a connection test refused a provider, and the provider's own words", () => {
    const error = new ApiError(400, "provider_test_failed", "Anthropic refused the credentials.", {
      failure: "provider_authentication_failed",
      detail: "invalid x-api-key",
    });
    expect(errorText(fr, error)).toBe(
      "Le test de connexion a échoué : rien n'a été enregistré. Le fournisseur a refusé la clé d'API. Le fournisseur a répondu : invalid x-api-key",
    );
    expect(errorText(en, new ApiError(400, "provider_test_failed", "", { failure: "weather_station_offline" }))).toBe(
      "The connection test failed, so nothing was saved.",
    );
  });

  it("tells a network failure from any other exception", () => {
    expect(errorText(fr, new TypeError("Failed to fetch"))).toBe("KinBot est injoignable : vérifiez la connexion.");
    expect(errorText(en, new Error("undefined is not a function"))).toBe("Something went wrong.");
  });
});

describe("connectionText words a provider's connection test", () => {
  it("words a success with its parameters, in the plural the count asks", () => {
    expect(connectionText(fr, { ok: true, code: "connected_models", params: { provider: "OpenAI", count: 42 }, message: "Connected to OpenAI: 42 models." })).toBe(
      "Connecté à OpenAI : 42 modèles.",
    );
    expect(connectionText(en, { ok: true, code: "connected_models", params: { provider: "OpenAI", count: 1 }, message: "" })).toBe("Connected to OpenAI: 1 model.");
    expect(connectionText(fr, { ok: true, code: "runs_locally", params: { model: "e5", dimensions: 1024 }, message: "" })).toBe(
      "e5 tourne sur cette machine (1\u202f024 dimensions).",
    );
  });

  it("words a failure by its provider error code", () => {
    const report = { ok: false, code: "provider_authentication_failed", message: "Incorrect API key provided." };
    expect(connectionText(fr, report)).toBe("La connexion a échoué : Le fournisseur a refusé la clé d'API.");
    expect(connectionText(en, report)).toBe("The connection failed: The provider refused the API key.");
    expect(connectionDetail(fr, report)).toBeNull();
  });

  it("says an OpenAI-compatible address may lack its /v1, and which one to try", () => {
    const params = { suggested_base_url: "http://127.0.0.1:8080/v1", detail: "Not Found" };
    const report = { ok: false, code: "provider_base_url_missing_v1", message: "", params };
    expect(connectionText(en, report)).toBe(
      "The connection failed: Nothing answers at this address. OpenAI-compatible servers usually end in /v1: try “http://127.0.0.1:8080/v1”.",
    );
    expect(connectionText(fr, report)).toBe(
      "La connexion a échoué : Rien ne répond à cette adresse. Les serveurs compatibles OpenAI se terminent généralement par /v1 : essayez « http://127.0.0.1:8080/v1 ».",
    );
    // Refused when saving: why the test failed, with the address to try.
    const refused = new ApiError(400, "provider_test_failed", "", { failure: "provider_base_url_missing_v1", ...params });
    expect(errorText(fr, refused)).toBe(
      "Le test de connexion a échoué : rien n'a été enregistré. Rien ne répond à cette adresse. Les serveurs compatibles OpenAI se terminent généralement par /v1 : essayez « http://127.0.0.1:8080/v1 ». Le fournisseur a répondu : Not Found",
    );
  });

  it("keeps the provider's own words for a second line", () => {
    const report = { ok: false, code: "provider_unavailable", message: "", params: { detail: "Model is loading, try again." } };
    expect(connectionText(fr, report)).toBe("La connexion a échoué : Le fournisseur est injoignable.");
    expect(connectionDetail(fr, report)).toBe("Le fournisseur a répondu : Model is loading, try again.");
    expect(connectionDetail(en, report)).toBe("The provider said: Model is loading, try again.");
    expect(connectionDetail(en, { ok: true, params: { detail: "ignored" } })).toBeNull();
  });
});
