package com.example;
// A serializable invocation handler, so that a dynamic proxy can be serialized.
public class Handler implements java.lang.reflect.InvocationHandler, java.io.Serializable {
  private static final long serialVersionUID = 7L;
  public String tag = "h";
  public Object invoke(Object proxy, java.lang.reflect.Method m, Object[] args) { return null; }
}
