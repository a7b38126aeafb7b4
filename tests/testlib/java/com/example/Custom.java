package com.example;
// A class whose writeObject writes more than its fields: an int and a string after them.
public class Custom implements java.io.Serializable {
  private static final long serialVersionUID = 3L;
  public long id = 42;
  private void writeObject(java.io.ObjectOutputStream out) throws java.io.IOException {
    out.defaultWriteObject();
    out.writeInt(0x01020304);
    out.writeObject("extra");
  }
}
