/** Strings of people's and Kins' pictures (issue 18: everyone is recognisable). */
export const en = {
  people: {
    kinPicture: "{{name}}'s picture",
  },
};

export const fr = {
  people: {
    kinPicture: "Image {{name, de}}",
  },
};
