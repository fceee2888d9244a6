"use client";
// The portal's one form helper: Mantine's `useForm` for values, client-side validation and input props, plus what
// every portal form does on submit: call the API, put a server error next to the field its `param` names or above
// the form (`formErrors` in lib/portal/api.ts), and show that it is submitting.
import { useForm, type FormValidateInput, type UseFormReturnType } from "@mantine/form";
import { useCallback, useState, type FormEvent } from "react";
import { formErrors } from "@/lib/portal/api";

export type ApiForm<Values extends Record<string, unknown>> = {
  form: UseFormReturnType<Values>;
  /** For `<form onSubmit={…}>`: validates, then submits. */
  onSubmit: (event?: FormEvent<HTMLFormElement>) => void;
  /** The error that belongs to no field (shown above the form), or null. */
  formError: string | null;
  setFormError: (message: string | null) => void;
  submitting: boolean;
};

export function useApiForm<Values extends Record<string, unknown>, Result = unknown>(options: {
  initialValues: Values;
  validate?: FormValidateInput<Values>;
  /** Sends the values; its rejection is shown on the form. */
  submit: (values: Values) => Promise<Result>;
  onSuccess?: (result: Result, values: Values, form: UseFormReturnType<Values>) => void;
  /** Server `param` → form field, where their names differ. */
  aliases?: Record<string, string>;
}): ApiForm<Values> {
  const form = useForm<Values>({ mode: "controlled", initialValues: options.initialValues, validate: options.validate });
  const [formError, setFormError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const { submit, onSuccess, aliases } = options;

  const send = useCallback(
    async (values: Values) => {
      setFormError(null);
      setSubmitting(true);
      try {
        const result = await submit(values);
        onSuccess?.(result, values, form);
      } catch (error) {
        const mapped = formErrors(error, Object.keys(form.getValues()), aliases);
        form.setErrors(mapped.fields);
        setFormError(mapped.form);
      } finally {
        setSubmitting(false);
      }
    },
    [submit, onSuccess, aliases, form],
  );

  const onSubmit = form.onSubmit((values) => {
    void send(values);
  });

  return { form, onSubmit, formError, setFormError, submitting };
}
